package io.amlease.testkit.field;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The launcher's flags: a bad one is named with its bound, and nothing starts. */
class FieldClusterMainTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) throws Exception {
        return FieldClusterMain.run(args, new BufferedReader(new StringReader("")),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String jars() throws Exception {
        return Files.writeString(dir.resolve("cp.txt"), "/nowhere/a.jar").toString();
    }

    @Test
    void helpListsTheFaultCommands() throws Exception {
        assertThat(run("--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("partition N", "zk-only N", "isolate-zk S", "quit");
    }

    @Test
    void aNodeCountOutOfBoundsIsNamed() throws Exception {
        assertThat(run("--jars", jars(), "--nodes", "0")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--nodes", "[1, 8]", "0");
    }

    @Test
    void aNodeExpiryBelowTwoSecondsIsNamed() throws Exception {
        assertThat(run("--jars", jars(), "--node-expiry", "500ms")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--node-expiry must be at least 2s: 500ms");
    }

    @Test
    void aBadDurationAnUnknownFlagAndAMissingValueAreNamed() throws Exception {
        assertThat(run("--jars", jars(), "--node-expiry", "soon")).isEqualTo(2);
        assertThat(run("--jars", jars(), "--nodes", "three")).isEqualTo(2);
        assertThat(run("--jars", jars(), "--bogus", "1")).isEqualTo(2);
        assertThat(run("--jars", jars(), "--nodes")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--node-expiry must be a duration such as 10s: soon",
                "--nodes must be a number: three", "unknown flag --bogus", "--nodes needs a value");
    }

    @Test
    void withoutTheJarsFileNothingStarts() throws Exception {
        assertThat(run()).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--jars must name the class-path file");
    }
}
