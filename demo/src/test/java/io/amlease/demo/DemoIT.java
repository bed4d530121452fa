package io.amlease.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code demo/run.sh} end to end, as a user runs it: exit 0, the summary shows no restart on the
 * blips and a failover to epoch 2 with adopted workers that reconnect to the new master by
 * themselves (through the endpoint it published), and nothing it started is left behind.
 * About a minute here.
 */
class DemoIT {
  private static final Duration AT_MOST = Duration.ofMinutes(4);

  @Test
  void runsAsDesignedAndLeavesNothingBehind() throws Exception {
    Set<Path> before = demoWorkDirs();
    Path out = Files.createTempFile("demo-it", ".out");
    try {
      Process run = new ProcessBuilder("bash", "run.sh").redirectErrorStream(true)
          .redirectOutput(out.toFile()).start();
      boolean ended = run.waitFor(AT_MOST.toSeconds(), TimeUnit.SECONDS);
      if (!ended) {
        run.descendants().forEach(ProcessHandle::destroy);
        run.destroy();
      }
      String output = Files.readString(out, StandardCharsets.UTF_8);
      assertThat(ended).as("ended within %s:%n%s", AT_MOST, output).isTrue();
      assertThat(run.exitValue()).as(output).isZero();
      List<String> rows = output.lines().filter(l -> l.contains(" | ")).toList();
      assertThat(row(rows, "blip: silent")).contains("0 restarts, epoch 1, attempt 1").endsWith("ok");
      assertThat(row(rows, "blip: reset")).contains("0 restarts, epoch 1, attempt 1").endsWith("ok");
      assertThat(row(rows, "partition > grace")).contains("epoch 2", "2/2 adopted", "reconnected +")
          .endsWith("ok");
      assertThat(output).contains("both workers found it there and connected")
          .contains("both workers reconnected, by themselves, to the master of epoch 2");
      assertThat(row(rows, "clean finish")).contains("FINISHED/SUCCEEDED").endsWith("ok");
      assertThat(output).contains("0 leftover process(es) killed, work directory removed");
      assertThat(demoWorkDirs()).as("work directories left behind").isEqualTo(before);
      assertThat(ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("")
          .contains("/amlease-demo-")).map(p -> p.info().commandLine().orElse("")).toList())
          .as("processes left behind").isEmpty();
    } finally {
      Files.deleteIfExists(out);
    }
  }

  private static String row(List<String> rows, String step) {
    return rows.stream().filter(r -> r.startsWith(step)).findFirst().orElse("(no row " + step + ")")
        .stripTrailing();
  }

  private static Set<Path> demoWorkDirs() throws IOException {
    try (Stream<Path> s = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      return s.filter(p -> p.getFileName().toString().startsWith("amlease-demo-"))
          .collect(Collectors.toSet());
    }
  }
}
