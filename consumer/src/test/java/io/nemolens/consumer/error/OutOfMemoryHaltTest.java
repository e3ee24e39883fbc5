package io.nemolens.consumer.error;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * What is and is not an out-of-memory error, and that everything else passes through untouched. The halt
 * itself ends the JVM: {@code OutOfMemoryHaltIT} sees it in a child JVM.
 */
class OutOfMemoryHaltTest {

    @Test
    void anOutOfMemoryErrorIsRecognisedAlsoAsTheCauseOfAnother() {
        OutOfMemoryError oom = new OutOfMemoryError("Java heap space");

        assertThat(OutOfMemoryHalt.isOutOfMemory(oom)).isTrue();
        assertThat(OutOfMemoryHalt.isOutOfMemory(new CompletionException(new IllegalStateException("wrapped", oom))))
                .isTrue();
        assertThat(OutOfMemoryHalt.isOutOfMemory(new StackOverflowError())).isFalse();
        assertThat(OutOfMemoryHalt.isOutOfMemory(new IllegalStateException("no memory problem")))
                .isFalse();
        assertThat(OutOfMemoryHalt.isOutOfMemory(null)).isFalse();
    }

    @Test
    void aCycleOfCausesEnds() {
        IllegalStateException a = new IllegalStateException("a");
        IllegalArgumentException b = new IllegalArgumentException("b", a);
        a.initCause(b);

        assertThat(OutOfMemoryHalt.isOutOfMemory(a)).isFalse();
    }

    @Test
    void aGuardedTaskRunsAndOtherFailuresPassThrough() {
        List<String> ran = new ArrayList<>();
        OutOfMemoryHalt.guarded(() -> ran.add("ran"), "test").run();
        assertThat(ran).containsExactly("ran");

        IllegalStateException failure = new IllegalStateException("broken");
        assertThatThrownBy(() -> OutOfMemoryHalt.guarded(
                                () -> {
                                    throw failure;
                                },
                                "test")
                        .run())
                .isSameAs(failure);
        StackOverflowError error = new StackOverflowError();
        assertThatThrownBy(() -> OutOfMemoryHalt.guarded(
                                () -> {
                                    throw error;
                                },
                                "test")
                        .run())
                .isSameAs(error);
    }

    @Test
    void theUncaughtHandlerHandsOtherFailuresToTheNextOne() {
        List<Throwable> seen = new ArrayList<>();
        Thread.UncaughtExceptionHandler handler = OutOfMemoryHalt.uncaughtHandler((t, e) -> seen.add(e));
        IllegalStateException failure = new IllegalStateException("broken");

        handler.uncaughtException(Thread.currentThread(), failure);

        assertThat(seen).containsExactly(failure);
    }

    @Test
    void installingTheDefaultHandlerIsUndoneByClosing() {
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        OutOfMemoryHalt.Installation installed = OutOfMemoryHalt.installDefaultHandler();
        assertThat(Thread.getDefaultUncaughtExceptionHandler()).isNotNull().isNotSameAs(before);
        installed.close();
        assertThat(Thread.getDefaultUncaughtExceptionHandler()).isSameAs(before);
    }
}
