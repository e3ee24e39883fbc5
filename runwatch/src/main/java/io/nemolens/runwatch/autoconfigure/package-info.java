/** The run watch in the application: its settings ({@code lens.run-watch.*}), its handlers, its judge's thread and its meters. */
@NullMarked
package io.nemolens.runwatch.autoconfigure;

import org.jspecify.annotations.NullMarked;
