/** The jar's commands ({@code poison}), run in a context without web server or listener. */
@NullMarked
package io.nemolens.app.cli;

import org.jspecify.annotations.NullMarked;
