/** The service: its main class, its commands and its own defaults ({@code io/nemolens/app/service.yml}). */
@NullMarked
package io.nemolens.app;

import org.jspecify.annotations.NullMarked;
