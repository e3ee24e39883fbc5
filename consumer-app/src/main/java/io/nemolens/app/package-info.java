/** The service: its main class and its configuration (application.yml). */
@NullMarked
package io.nemolens.app;

import org.jspecify.annotations.NullMarked;
