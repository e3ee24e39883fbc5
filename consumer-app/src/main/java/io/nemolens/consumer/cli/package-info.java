/** The jar's commands ({@code poison}), run in a context without web server or listener. */
@NullMarked
package io.nemolens.consumer.cli;

import org.jspecify.annotations.NullMarked;
