package io.amlease.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * {@code bin/amlease ARGS…} as a real JVM child process, the way the script runs it (same main class,
 * same {@code conf/log4j2.xml}), on the test class path so that no {@code package} step is needed.
 * stdout and stderr go to files in a directory the test owns, so a test can read them while the
 * process runs and after it ended; {@link #close()} kills it and everything it started.
 */
final class HoldProcess implements AutoCloseable {
  /** Surefire runs in the module directory ({@code <repo>/runner}). */
  static final Path REPO = repoRoot();

  private final String name;
  private final Process process;
  private final Path stdout;
  private final Path stderr;
  private final Set<Long> alsoKill = ConcurrentHashMap.newKeySet();

  private HoldProcess(String name, Process process, Path stdout, Path stderr) {
    this.name = name;
    this.process = process;
    this.stdout = stdout;
    this.stderr = stderr;
  }

  /**
   * Starts {@code amlease args…}; output goes to {@code dir/<name>.out} and {@code dir/<name>.err}.
   */
  static HoldProcess start(Path dir, String name, String... args) throws IOException {
    return start(dir, name, java.util.Map.of(), args);
  }

  /** As {@link #start(Path, String, String...)}, with {@code env} added to the environment. */
  static HoldProcess start(Path dir, String name, java.util.Map<String, String> env,
      String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"),
        "-Dlog4j2.configurationFile=" + REPO.resolve("conf/log4j2.xml"),
        Main.class.getName()));
    cmd.addAll(Arrays.asList(args));
    Path out = dir.resolve(name + ".out");
    Path err = dir.resolve(name + ".err");
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile())
        .redirectOutput(out.toFile()).redirectError(err.toFile());
    // The process logs to stderr at info; a debug level from the developer's shell would only add
    // noise, and the tests read the warnings.
    pb.environment().remove("AMLEASE_LOG_LEVEL");
    pb.environment().remove("AMLEASE_EVENT_LOG");
    pb.environment().putAll(env);
    return new HoldProcess(name, pb.start(), out, err);
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Waits at most {@code within} for the process to end and returns its exit status; fails the test,
   * showing the output, if it is still running.
   */
  int awaitExit(Duration within) throws InterruptedException {
    if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError(name + " still running after " + within + "\n" + describe());
    }
    return process.exitValue();
  }

  /** Sends signal {@code signal} (TERM, INT, …) with {@code kill -s}, as an operator would. */
  void signal(String signal) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(pid())).inheritIO().start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new AssertionError("kill -s " + signal + " " + pid() + " failed");
    }
  }

  /**
   * Kills {@code pid} on {@link #close()} too: a child that outlived this process (a bug under test)
   * is no longer among its descendants.
   */
  void killOnClose(long pid) {
    alsoKill.add(pid);
  }

  String stdout() {
    return read(stdout);
  }

  String stderr() {
    return read(stderr);
  }

  /** Complete stdout lines so far (a line still being written is left out). */
  List<String> stdoutLines() {
    String s = stdout();
    int end = s.lastIndexOf('\n');
    return end < 0 ? List.of() : List.of(s.substring(0, end).split("\n", -1));
  }

  /** For assertion messages. */
  String describe() {
    return "--- " + name + " stdout ---\n" + stdout() + "--- " + name + " stderr ---\n" + stderr();
  }

  @Override
  public void close() throws InterruptedException {
    List<ProcessHandle> tree = process.isAlive() ? process.descendants().toList() : List.of();
    process.destroyForcibly();
    tree.forEach(ProcessHandle::destroyForcibly);
    alsoKill.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
    process.waitFor(10, TimeUnit.SECONDS);
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + file, e);
    }
  }

  private static Path repoRoot() {
    Path root = Path.of("").toAbsolutePath().getParent();
    if (root == null || !Files.isRegularFile(root.resolve("conf/log4j2.xml"))
        || !Files.isRegularFile(root.resolve("bin/amlease"))) {
      throw new IllegalStateException("tests must run in the runner module directory; "
          + Path.of("").toAbsolutePath() + "/.. has no conf/log4j2.xml and bin/amlease");
    }
    return root;
  }
}
