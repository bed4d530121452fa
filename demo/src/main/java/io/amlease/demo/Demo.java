package io.amlease.demo;

import io.amlease.testkit.FaultProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One demo run: owns everything it starts (a work directory, the embedded cluster, the fault
 * proxy, the application and its processes) and cleans all of it up in {@link #close}, which is
 * idempotent and safe to call from a shutdown hook while {@link #run} is still going.
 */
final class Demo implements AutoCloseable {
  static final int OK = 0;
  static final int STEP_FAILED = 1;
  private static final Logger LOG = LoggerFactory.getLogger(Demo.class);
  /**
   * Guice (in the RM and NM web apps) warns on stderr through java.util.logging that two injectors
   * share one JVM, which is what an embedded cluster is. Held here: JUL keeps loggers weakly.
   */
  private static final java.util.logging.Logger GUICE =
      java.util.logging.Logger.getLogger("com.google.inject.servlet");

  private final DemoConfig config;
  private final Narrator say;
  private final ProcessSweeper sweeper = new ProcessSweeper();
  private final List<StepResult> results = new ArrayList<>();
  private Path workDir;
  private EmbeddedCluster cluster;
  private FaultProxy proxy;
  private AppObserver observer;
  private Path staging;
  private boolean closed;

  Demo(DemoConfig config, Narrator say) {
    this.config = config;
    this.say = say;
  }

  /** Runs the timeline and prints the summary; {@link #OK} or {@link #STEP_FAILED}. */
  int run() throws Exception {
    Timeline timeline;
    synchronized (this) {
      if (closed) {
        return STEP_FAILED;
      }
      GUICE.setLevel(java.util.logging.Level.SEVERE);
      workDir = Files.createTempDirectory("amlease-demo-");
      sweeper.start();
      say.say("starting ZooKeeper (500 ms ticks) and a MiniYARNCluster (1 RM, 2 NMs) in this JVM");
      long t0 = System.nanoTime();
      cluster = EmbeddedCluster.start(EmbeddedCluster.Settings.quick("amlease-demo",
          workDir.resolve("cluster"), 2));
      Duration took = Duration.ofNanos(System.nanoTime() - t0);
      say.say("cluster up: ZooKeeper %s, ResourceManager %s", cluster.zkConnect(),
          cluster.rmWebUrl());
      results.add(StepResult.ok("cluster", "ZooKeeper + YARN (2 NMs) up", "up", took));
      proxy = FaultProxy.start(new InetSocketAddress("127.0.0.1", cluster.zkPort()));
      observer = new AppObserver(cluster.clientConf(), cluster.zkConnect(), SampleApp.LEASE);
    }
    SampleApp app = SampleApp.prepare(workDir.resolve("app"));
    timeline = new Timeline(say, observer, app, proxy, sweeper);
    int exit = OK;
    String current = "attempt 1 leads";
    try {
      results.add(timeline.firstLeader(() -> submit(app)));
      current = "blip: silent";
      results.add(timeline.blip(Timeline.Blip.SILENT));
      current = "blip: reset";
      results.add(timeline.blip(Timeline.Blip.RESET));
      current = "partition > grace";
      results.add(timeline.partition());
      current = "clean finish";
      if (config.keepRunning()) {
        results.add(StepResult.skipped("clean finish", "SUCCEEDED, workers stopped, lease released",
            "(--keep-running)"));
      } else {
        results.add(timeline.finish());
      }
    } catch (StepFailed f) {
      say.say("step '%s' did not behave as designed: %s", f.step(), f.getMessage());
      results.add(StepResult.failed(f.step(), "see above", "did not complete", null,
          f.getMessage()));
      exit = STEP_FAILED;
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("step '" + current + "': " + e, e);
    }
    if (results.stream().anyMatch(r -> r.outcome() == StepResult.Outcome.FAILED)) {
      exit = STEP_FAILED;
    }
    say.plain("");
    SummaryTable.render(results).forEach(say::plain);
    say.plain("");
    if (config.keepRunning() && observer.app() != null) {
      keepRunning(timeline);
    }
    return exit;
  }

  private ApplicationId submit(SampleApp app) throws Exception {
    ApplicationId id = app.submit(cluster.clientConf(), config.amJar(), proxy.connectString(),
        Timeline.SESSION_TIMEOUT);
    // amlease submit stages the AM jar under the local file system's home directory; the AM
    // deletes it on a clean finish, the demo on any other end.
    FileSystem fs = FileSystem.getLocal(cluster.clientConf());
    synchronized (this) {
      staging = Path.of(new org.apache.hadoop.fs.Path(fs.getHomeDirectory(), ".amlease/" + id)
          .toUri().getPath());
    }
    return id;
  }

  private void keepRunning(Timeline timeline) throws Exception {
    String tracking = observer.report().getTrackingUrl();
    say.plain("The cluster and the application keep running (--keep-running); Ctrl-C (or SIGTERM) "
        + "stops and cleans up everything.");
    // The RM's HTML pages answer 404 here: Guice keeps one servlet pipeline per JVM, and the
    // NodeManagers' web apps, started after the RM's, take it over. Its REST API and web proxy work.
    say.plain("  RM web (REST):       " + cluster.rmWebUrl() + "/ws/v1/cluster/apps/" + observer.app());
    say.plain("  AM tracking URL:     " + cluster.viaRmWeb(tracking) + " (through the RM's proxy)");
    if (timeline.leader() != null) {
      say.plain("  AM status (direct):  " + timeline.leader().urls().get("tracking"));
    }
    say.plain("  ZooKeeper:           " + cluster.zkConnect() + " (lease " + SampleApp.LEASE + ")");
    Thread.sleep(Long.MAX_VALUE);
  }

  @Override
  public void close() throws Exception {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    long t0 = System.nanoTime();
    say.say("cleaning up: stopping the application, the cluster and every process they started");
    try {
      if (observer != null) {
        quietly("killing the application", observer::killIfRunning);
        quietly("waiting for the kill", this::awaitTerminal);
        quietly("keeping the container logs", this::keepContainerLogs);
        quietly("closing the observer", observer::close);
      }
      if (proxy != null) {
        quietly("closing the fault proxy", proxy::close);
      }
      if (cluster != null) {
        quietly("stopping the cluster", cluster::close);
      }
    } finally {
      int killed = sweeper.killLeftovers(Duration.ofSeconds(2));
      if (staging != null) {
        quietly("deleting the staging directory", () -> deleteTree(staging));
      }
      if (workDir != null) {
        quietly("deleting the work directory", () -> deleteTree(workDir));
      }
      say.say("cleaned up in %s: cluster stopped, %d leftover process(es) killed, work directory "
          + "removed", Narrator.secs(Duration.ofNanos(System.nanoTime() - t0)), killed);
    }
  }

  private void awaitTerminal() throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (observer.app() != null && !Terminal.is(observer.report().getYarnApplicationState())
        && System.nanoTime() < deadline) {
      Thread.sleep(200);
    }
  }

  /** The NodeManagers' logs of this run (AppMaster.stderr of each attempt, …) go to the log dir. */
  private void keepContainerLogs() throws IOException {
    if (config.logDir() == null || cluster == null) {
      return;
    }
    Path target = config.logDir().resolve("containers");
    for (Path dir : cluster.containerLogDirs()) {
      if (!Files.isDirectory(dir)) {
        continue;
      }
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : (Iterable<Path>) files::iterator) {
          Path to = target.resolve(dir.relativize(p).toString());
          if (Files.isDirectory(p)) {
            Files.createDirectories(to);
          } else {
            Files.copy(p, to, StandardCopyOption.REPLACE_EXISTING);
          }
        }
      }
    }
  }

  private interface Action {
    void run() throws Exception;
  }

  /** Clean-up goes on whatever one part of it throws. */
  private static void quietly(String what, Action action) {
    try {
      action.run();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      LOG.warn("{}: interrupted", what);
    } catch (Exception e) {
      LOG.warn("{}: {}", what, e.toString(), e);
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        Files.delete(file);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
        if (e != null) {
          throw new UncheckedIOException(e);
        }
        Files.delete(dir);
        return FileVisitResult.CONTINUE;
      }
    });
  }
}
