package io.amlease.testkit.field;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One Hadoop or ZooKeeper server process of the field cluster, started from its own main class as
 * a real install's scripts would, with its output in {@code <logs>/<name>.out}. It can be killed
 * ({@code kill -9}) and started again with the same command, as an operator would.
 */
public final class Daemon implements AutoCloseable {
    private static final Duration STOP_WITHIN = Duration.ofSeconds(15);

    private final String name;
    private final List<String> command;
    private final Map<String, String> env;
    private final Path out;
    private Process process;

    Daemon(String name, List<String> command, Map<String, String> env, Path logs) {
        this.name = name;
        this.command = List.copyOf(command);
        this.env = Map.copyOf(env);
        this.out = logs.resolve(name + ".out");
    }

    /** The java command line of {@code mainClass} on {@code classpath}, run as {@code user} if any. */
    static List<String> java(Optional<NodeUser> user, String classpath, List<String> jvmOptions,
            String mainClass, List<String> args) {
        List<String> cmd = new ArrayList<>();
        user.ifPresent(u -> cmd.addAll(u.asUser()));
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", classpath, mainClass));
        cmd.addAll(args);
        return cmd;
    }

    synchronized Daemon start() throws IOException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException(name + " is already running (pid " + process.pid() + ")");
        }
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile()));
        pb.environment().putAll(env);
        process = pb.start();
        return this;
    }

    public String name() {
        return name;
    }

    public synchronized long pid() {
        return process.pid();
    }

    public synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** The last {@code lines} lines of the process's output. */
    String tail(int lines) {
        try {
            List<String> all = java.nio.file.Files.readAllLines(out);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(cannot read " + out + ": " + e + ")";
        }
    }

    public Path out() {
        return out;
    }

    /** {@code kill -9}, and waits for the process to be gone. */
    synchronized void kill() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor(STOP_WITHIN.toSeconds(), TimeUnit.SECONDS);
        }
    }

    /** Runs the command to completion (a one-off such as {@code namenode -format}). */
    int runToEnd(Duration within) throws IOException, InterruptedException {
        start();
        if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
            kill();
            throw new IOException(name + " did not finish within " + within + "; see " + out);
        }
        return process.exitValue();
    }

    @Override
    public synchronized void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(STOP_WITHIN.toSeconds(), TimeUnit.SECONDS)) {
                kill();
            }
        }
    }
}
