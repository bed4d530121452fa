package io.amlease.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's "Run on YARN" example, typed as a new user would: its shell block runs through
 * {@code bash} in a directory holding {@code master.sh} and {@code worker.sh}, with only the
 * cluster's addresses replaced (its configuration directory, its ZooKeeper) and {@code bin/amlease}
 * of this checkout. The master and every worker must run the scripts shipped with {@code --file}.
 */
class ReadmeRunOnYarnIT {
  private static final Path REPO = Path.of("..").toAbsolutePath().normalize();

  @RegisterExtension
  static final YarnZkCluster cluster = new YarnZkCluster("amlease-readme-it");

  @TempDir
  Path dir;

  /** The shell block under "## Run on YARN" in the README, as the user would copy it. */
  static String example() throws Exception {
    String readme = Files.readString(REPO.resolve("README.md"));
    int section = readme.indexOf("## Run on YARN");
    int start = readme.indexOf("```sh\n", section) + "```sh\n".length();
    return readme.substring(start, readme.indexOf("```", start));
  }

  @Test
  void theReadmeExampleRunsTheMasterAndEveryWorker() throws Exception {
    String example = example();
    assertThat(example).contains("--file ./worker.sh", "--worker-command './worker.sh'",
        "--workers 4", "-- sh ./master.sh");
    Path conf = Files.createDirectories(dir.resolve("conf"));
    try (OutputStream o = Files.newOutputStream(conf.resolve("yarn-site.xml"))) {
      cluster.conf().writeXml(o);
    }
    Path seen = Files.createDirectories(dir.resolve("seen"));
    Path work = Files.createDirectories(dir.resolve("work"));
    Files.writeString(work.resolve("worker.sh"), "#!/bin/sh\n"
        + "echo \"$AMLEASE_EPOCH $AMLEASE_APPLICATION_ID $AMLEASE_LEASE\" > " + seen
        + "/worker-$$-$(hostname)\nexec sleep 600\n");
    Files.writeString(work.resolve("master.sh"), "n=0\n"
        + "echo \"$AMLEASE_EPOCH $AMLEASE_APPLICATION_ID\" > " + seen + "/master\n"
        + "while [ $(ls " + seen + " | grep -c '^worker-') -lt 4 ] && [ $n -lt 900 ]; do\n"
        + "  sleep 0.1; n=$((n + 1))\ndone\n"
        + "[ $n -lt 900 ]\n");
    String typed = example
        .replace("export HADOOP_CONF_DIR=/etc/hadoop/conf", "export HADOOP_CONF_DIR=" + conf)
        .replace("zk1:2181,zk2:2181,zk3:2181", cluster.zkConnect())
        .replace("bin/amlease ", REPO.resolve("bin/amlease") + " ");
    Process p = new ProcessBuilder("bash", "-c", "set -e\n" + typed).directory(work.toFile())
        .redirectOutput(dir.resolve("out").toFile()).redirectError(dir.resolve("err").toFile())
        .start();
    boolean ended = p.waitFor(180, TimeUnit.SECONDS);
    String output = Files.readString(dir.resolve("out")) + Files.readString(dir.resolve("err"));
    if (!ended) {
      p.destroyForcibly();
    }
    assertThat(ended).as(output).isTrue();
    assertThat(p.exitValue()).as(output).isZero();
    assertThat(output).contains("FINISHED", "SUCCEEDED");

    String app = output.lines().filter(l -> l.startsWith("application_")).findFirst()
        .orElseThrow(() -> new AssertionError("no application id printed:\n" + output));
    assertThat(Files.readString(seen.resolve("master")).trim()).isEqualTo("1 " + app);
    List<String> workers;
    try (Stream<Path> files = Files.list(seen)) {
      workers = files.filter(f -> f.getFileName().toString().startsWith("worker-"))
          .map(f -> read(f)).toList();
    }
    assertThat(workers).hasSizeGreaterThanOrEqualTo(4)
        .allSatisfy(w -> assertThat(w).isEqualTo("1 " + app + " /amlease/stream-master"));
  }

  private static String read(Path f) {
    try {
      return Files.readString(f, StandardCharsets.UTF_8).trim();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
