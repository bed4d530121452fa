package io.amlease.demo;

import io.amlease.am.client.SubmitCommand;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.ToolRunner;
import org.apache.hadoop.yarn.api.records.ApplicationId;

/**
 * The sample application: a master that prints its epoch every second (and records
 * "epoch millis master-pid am-pid" five times a second) until asked to finish, and serves workers
 * on an endpoint it publishes in the leader info ({@link DemoEndpoint}); workers that record
 * "container-id pid" when they start, then find the master through the leader info, connect, and
 * reconnect to the next master after a failover, recording "container-id epoch millis" for each
 * connection ({@link DemoWorker}). The records live in a local directory: in a MiniYARNCluster
 * every container runs on this machine, with this JVM's java and class path.
 */
final class SampleApp {
  static final String NAME = "amlease-demo";
  static final String LEASE = "/amlease/" + NAME;
  static final int WORKERS = 2;

  /** One record line of the master. */
  record MasterLine(long epoch, Instant at, long masterPid, long amPid) {}

  /** One worker start: its container and its process. */
  record WorkerStart(String containerId, long pid) {}

  /** A worker connected to the master of {@code epoch} at {@code at}. */
  record WorkerLink(String containerId, long epoch, Instant at) {}

  private final Path masterRecord;
  private final Path workerRecord;
  private final Path linkRecord;
  private final Path stopFile;
  private final Path script;
  private final Path workerScript;

  private SampleApp(Path dir) {
    masterRecord = dir.resolve("master.record");
    workerRecord = dir.resolve("workers.record");
    linkRecord = dir.resolve("workers.links");
    stopFile = dir.resolve("finish");
    script = dir.resolve("master.sh");
    workerScript = dir.resolve("worker.sh");
  }

  static SampleApp prepare(Path dir) throws IOException {
    Files.createDirectories(dir);
    SampleApp app = new SampleApp(dir);
    Files.writeString(app.script, String.join("\n",
        "# amlease demo master: prints its epoch every second until asked to finish; its endpoint",
        "# (in the background, in the master's process group) serves the workers.",
        java() + " io.amlease.demo.DemoEndpoint " + dir + " &",
        "trap 'kill $! 2>/dev/null' EXIT",
        "i=0",
        "while [ ! -e " + app.stopFile + " ]; do",
        "  if [ $((i % 5)) -eq 0 ]; then echo \"master: epoch $AMLEASE_EPOCH\"; fi",
        "  echo \"$AMLEASE_EPOCH $(date +%s%3N) $$ $PPID\" >> " + app.masterRecord,
        "  i=$((i + 1))",
        "  sleep 0.2",
        "done",
        "echo \"master: asked to finish\"",
        ""));
    // A script rather than an inline command: the NodeManager's launch script wraps the command in
    // double quotes without escaping, so quotes and $$ inside it would be the launcher's.
    Files.writeString(app.workerScript, String.join("\n",
        "# amlease demo worker: records its container and pid, then follows the master.",
        "echo \"$CONTAINER_ID $$\" >> " + app.workerRecord,
        "exec " + java() + " io.amlease.demo.DemoWorker " + app.linkRecord,
        ""));
    return app;
  }

  /** This JVM's java and class path, small and C1-only: every container runs on this machine. */
  private static String java() {
    return "'" + Path.of(System.getProperty("java.home"), "bin", "java") + "' -Xmx64m "
        + "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp '" + System.getProperty("java.class.path")
        + "'";
  }

  /**
   * Submits through {@code amlease submit} itself (in-process), so the demo runs the same client
   * code users do.
   *
   * @return the application id
   */
  ApplicationId submit(Configuration conf, Path amJar, String zkConnect, Duration sessionTimeout)
      throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = ToolRunner.run(conf, new SubmitCommand(new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8)), new String[] {
            "--am-jar", amJar.toString(), "--name", NAME, "--zk", zkConnect,
            "--session-timeout", sessionTimeout.toMillis() + "ms", "--stop-timeout", "1s",
            "--am-memory", "256", "--workers", Integer.toString(WORKERS), "--worker-memory", "128",
            "--worker-command", "sh " + workerScript,
            "--", "sh", script.toString()});
    if (exit != 0) {
      throw new IllegalStateException("amlease submit exited " + exit + ": "
          + err.toString(StandardCharsets.UTF_8).trim());
    }
    return ApplicationId.fromString(out.toString(StandardCharsets.UTF_8).trim());
  }

  /** Asks the master to finish: it exits 0 and the AM ends the application cleanly. */
  void finish() throws IOException {
    Files.writeString(stopFile, "");
  }

  List<MasterLine> masterLines() throws IOException {
    List<MasterLine> lines = new ArrayList<>();
    for (String[] f : fields(masterRecord)) {
      if (f.length == 4) {
        lines.add(new MasterLine(Long.parseLong(f[0]), Instant.ofEpochMilli(Long.parseLong(f[1])),
            Long.parseLong(f[2]), Long.parseLong(f[3])));
      }
    }
    return lines;
  }

  List<WorkerStart> workerStarts() throws IOException {
    List<WorkerStart> starts = new ArrayList<>();
    for (String[] f : fields(workerRecord)) {
      if (f.length == 2) {
        starts.add(new WorkerStart(f[0], Long.parseLong(f[1])));
      }
    }
    return starts;
  }

  List<WorkerLink> workerLinks() throws IOException {
    List<WorkerLink> links = new ArrayList<>();
    for (String[] f : fields(linkRecord)) {
      if (f.length == 3) {
        links.add(new WorkerLink(f[0], Long.parseLong(f[1]),
            Instant.ofEpochMilli(Long.parseLong(f[2]))));
      }
    }
    return links;
  }

  /**
   * The connections to the master of {@code epoch}, once every worker in {@code workers} has
   * made one; empty until then.
   */
  java.util.Optional<List<WorkerLink>> allLinkedTo(long epoch, List<WorkerStart> workers)
      throws IOException {
    List<WorkerLink> links = workerLinks().stream().filter(l -> l.epoch() == epoch).toList();
    boolean all = workers.stream().allMatch(w -> links.stream()
        .anyMatch(l -> l.containerId().equals(w.containerId())));
    return all ? java.util.Optional.of(links) : java.util.Optional.empty();
  }

  /** Complete lines only: a writer may be half-way through the last one. */
  private static List<String[]> fields(Path record) throws IOException {
    if (!Files.exists(record)) {
      return List.of();
    }
    String text = Files.readString(record);
    int end = text.lastIndexOf('\n');
    if (end < 0) {
      return List.of();
    }
    List<String[]> out = new ArrayList<>();
    for (String line : text.substring(0, end).split("\n")) {
      if (!line.isBlank()) {
        out.add(line.trim().split(" "));
      }
    }
    return out;
  }
}
