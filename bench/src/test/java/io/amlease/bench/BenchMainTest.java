package io.amlease.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad flags are refused before anything runs, with the flag and the bound in the message. */
class BenchMainTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return BenchMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void aSessionTimeoutOutsideTheServersRangeIsRefused(@TempDir Path dir) {
    Path results = dir.resolve("r");
    assertThat(run("--quick", "--out", results.toString(), "--session-timeout", "12s"))
        .isEqualTo(BenchMain.USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("--session-timeout", "[2s, 10s]", "was 12s");
    assertThat(Files.exists(results)).as("nothing written").isFalse();
  }

  @Test
  void aSessionTimeoutWithoutAUnitIsRefused() {
    assertThat(run("-T", "6")).isEqualTo(BenchMain.USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--session-timeout", "'6'",
        "is not a duration");
  }

  @Test
  void tortureFlagsAreCheckedBeforeAnythingRuns(@TempDir Path dir) {
    Path results = dir.resolve("r");
    assertThat(run("--torture", "10", "--out", results.toString())).isEqualTo(BenchMain.USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--torture", "'10'");
    assertThat(run("--torture", "5m", "-T", "3s", "--out", results.toString()))
        .isEqualTo(BenchMain.USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("[4s, 10s] with --torture, was 3s");
    assertThat(run("--torture", "5m", "--quick")).isEqualTo(BenchMain.USAGE);
    assertThat(run("--torture", "5m", "--trials", "0")).isEqualTo(BenchMain.USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--trials must be at least 1");
    assertThat(run("--torture", "5m", "--flink")).isEqualTo(BenchMain.USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--flink and --torture");
    assertThat(run("--trials", "3")).isEqualTo(BenchMain.USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--trials goes with --torture");
    assertThat(Files.exists(results)).as("nothing written").isFalse();
  }

  @Test
  void helpNamesTheFlag() {
    assertThat(run("--help")).isEqualTo(BenchMain.OK);
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("--session-timeout <DURATION>",
        "--torture <DURATION>", "--trials <N>", "--flink");
  }
}
