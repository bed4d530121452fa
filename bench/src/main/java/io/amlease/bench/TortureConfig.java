package io.amlease.bench;

import io.amlease.lease.Durations;
import io.amlease.testkit.ZkEnsemble;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What one torture run does ({@code bench --torture DURATION}), fixed up front.
 *
 * @param out directory for {@code results.json} (and the records of trials in which amlease
 *     violated something, under {@code work/})
 * @param seed seed of the first trial; trial i uses {@code seed + i}
 * @param duration trials start until this much time has passed (a trial under way finishes)
 * @param maxTrials at most this many trials ({@code --trials}; 1 with {@code --seed} replays one)
 * @param sessionTimeout T for every contender
 * @param trialLength how long each trial injects faults; 2 T of quiet follow
 * @param stopTimeout amlease {@code hold}'s stop-timeout; also how long the checker lets any
 *     contender's processes run on after their term (plus {@link #STOP_SLACK})
 * @param contenders who is compared
 * @param parallel trials run at once, each on its own ensemble ({@code --parallel})
 * @param keepRecords keep every trial's records under {@code work/}, not only those of trials in
 *     which amlease violated something ({@code --keep-records})
 */
record TortureConfig(Path out, long seed, Duration duration, int maxTrials, Duration sessionTimeout,
    Duration trialLength, Duration stopTimeout, List<Contender> contenders, int parallel,
    boolean keepRecords) {

  /**
   * Beyond the stop-timeout, for signal delivery, {@code hold}'s reaper polling every 100 ms and a
   * process's last stamp, on a two-core machine running a dozen JVMs.
   */
  static final Duration STOP_SLACK = Duration.ofMillis(500);

  TortureConfig {
    if (sessionTimeout.compareTo(Duration.ofSeconds(4)) < 0
        || sessionTimeout.compareTo(Duration.ofSeconds(10)) > 0) {
      // Below 4 s, hold's stop-timeout (1 s) and the G2 slack (1 s) leave it no grace.
      throw new IllegalArgumentException("--session-timeout (T) must be within [4s, 10s] with "
          + "--torture, was " + Durations.format(sessionTimeout));
    }
    if (duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException("--torture: the duration must be positive, was "
          + Durations.format(duration));
    }
    if (parallel < 1 || parallel > 8) {
      throw new IllegalArgumentException("--parallel must be within [1, 8], was " + parallel);
    }
    if (maxTrials < 1) {
      throw new IllegalArgumentException("--trials must be at least 1, was " + maxTrials);
    }
    contenders = List.copyOf(contenders);
  }

  /** The documented torture run: every contender, 4 T of faults per trial, stop-timeout 1 s. */
  static TortureConfig of(Path out, long seed, Duration duration, int maxTrials, Duration t,
      int parallel, boolean keepRecords) {
    return new TortureConfig(out, seed, duration, maxTrials, t, t.multipliedBy(4),
        Duration.ofSeconds(1), Contender.CURATOR, parallel, keepRecords);
  }

  /**
   * ZooKeeper's sample limits (10 ticks) with tick = T/10: the session timeout is 10 ticks (within
   * the server's [2, 20]), and an isolated follower serves its clients for up to
   * {@code syncLimit × tick} = T after it lost its leader, as the sample config's 10 s does at T = 10 s.
   */
  ZkEnsemble.Timing ensembleTiming() {
    return new ZkEnsemble.Timing(Math.toIntExact(sessionTimeout.toMillis() / 10), 10, 10);
  }

  Duration quiet() {
    return sessionTimeout.multipliedBy(2);
  }

  /** How long a term's processes may act after it ended (G4: the stop-timeout, plus slack). */
  Duration stopAllowance() {
    return stopTimeout.plus(STOP_SLACK);
  }

  TortureChecker.Tolerances tolerances() {
    return new TortureChecker.Tolerances(stopAllowance(), sessionTimeout);
  }
}
