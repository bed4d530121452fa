package io.amlease.bench;

import io.amlease.lease.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * How each contender's holder process is started in the torture mode. amlease's is the real
 * {@code bin/amlease hold} (amlease-runner's {@code io.amlease.cli.Main}, on this JVM's class path
 * at run time only), with the actor script as its COMMAND; a latch's is a {@link TortureHolder}.
 * Both JVMs are small and C1-only: a dozen run at once on two cores, and they start often.
 */
final class TortureLaunchers {
  /** amlease-runner's entry point; a name, since the bench compiles against the lease alone. */
  static final String HOLD_MAIN = "io.amlease.cli.Main";
  /** Logging for {@code hold}: its lease events, stamped with nanoTime, are the term edges. */
  static final String HOLD_LOG_CONFIG = "torture-hold-log4j2.xml";
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

  private TortureLaunchers() {}

  /** {@code rate}: the holder's clocks run at that rate ({@link HolderClock}); empty: real. */
  static SupervisedHolder.Launcher of(Contender c, String connect, String path, String data,
      Duration t, Duration stopTimeout, String token, Optional<Double> rate) {
    return c == Contender.AMLEASE ? hold(connect, path, data, t, stopTimeout, token, rate)
        : latch(c, connect, path, data, t, token, rate);
  }

  private static SupervisedHolder.Launcher hold(String connect, String path, String data,
      Duration t, Duration stopTimeout, String token, Optional<Double> rate) {
    return (life, dir) -> {
      List<String> cmd = jvm("-Dlog4j2.configurationFile=" + HOLD_LOG_CONFIG,
          "-Dtorture.edges=" + dir.resolve(ActorLogs.EDGES));
      cmd.addAll(List.of(HOLD_MAIN, "hold", "--zk", connect, "--lease", path, "--id", life,
          "--session-timeout", Durations.format(t), "--stop-timeout", Durations.format(stopTimeout),
          "--connect-timeout", Durations.format(CONNECT_TIMEOUT), "--"));
      // One term per hold process, so one COMMAND directory.
      cmd.addAll(ActorScript.command(token, dir.resolve("cmd-1"), data));
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
          .redirectOutput(dir.resolve("out.log").toFile());
      pb.environment().put("TORTURE_SESSION_MS", Long.toString(t.toMillis()));
      rate.ifPresent(r -> pb.environment().putAll(HolderClock.environment(r)));
      return pb.start();
    };
  }

  private static SupervisedHolder.Launcher latch(Contender c, String connect, String path,
      String data, Duration t, String token, Optional<Double> rate) {
    return (life, dir) -> {
      List<String> cmd = jvm();
      cmd.addAll(List.of(TortureHolder.class.getName(), c.label(), life, connect, path,
          Long.toString(t.toMillis()), dir.toString(), token, data));
      // stdin stays an open pipe: the holder exits when it closes, with the bench.
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
          .redirectOutput(dir.resolve("out.log").toFile());
      rate.ifPresent(r -> pb.environment().putAll(HolderClock.environment(r)));
      return pb.start();
    };
  }

  private static List<String> jvm(String... props) {
    List<String> cmd = new ArrayList<>(List.of(ChildJvm.java(), "-Xmx96m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
    cmd.addAll(List.of(props));
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path")));
    return cmd;
  }
}
