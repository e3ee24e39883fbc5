package com.example.lens;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The handler example in README.md is this sample's compiled, tested source, word for word. */
class ReadmeExampleTest {

    @Test
    void readmeShowsTheTestedHandlerExample() throws Exception {
        String readme = Files.readString(Path.of("..", "..", "README.md"));
        String start =
                "<!-- example: samples/handler-without-archive/src/main/java/com/example/lens/SlowTrainStepHandler.java -->\n```java\n";
        int from = readme.indexOf(start);
        assertThat(from).as("README marks the handler example").isNotNegative();
        int codeStart = from + start.length();
        String shown = readme.substring(codeStart, readme.indexOf("```", codeStart));
        String source = Files.readString(Path.of("src/main/java/com/example/lens/SlowTrainStepHandler.java"));
        assertThat(shown).isEqualTo(source);
    }
}
