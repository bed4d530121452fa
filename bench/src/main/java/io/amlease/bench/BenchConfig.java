package io.amlease.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * What one run does, fixed up front: the mode's session timeout, repetitions and sizes.
 *
 * @param quick the short mode ({@code --quick})
 * @param out directory for {@code results.json} and {@code timeline.svg}
 * @param seed base seed of the randomized trials (trial i uses {@code seed + i})
 * @param sessionTimeout T, for every contender
 * @param blipDurations distinct blip durations, spread from 0.1 T to 0.9 × grace (each silent and reset)
 * @param partitionTrials partition trials per contender
 * @param handoverTrials clean handovers per contender
 * @param crashTrials SIGKILLed holders per contender
 * @param randomTrials randomized trials per contender
 * @param randomLength how long each randomized trial injects faults
 * @param scaleLeases N for the scale scenario
 * @param measureWindow how long steady-state rates (requests/s, writes/s) are measured
 * @param contenders who is compared
 * @param scenarios which scenarios run
 */
record BenchConfig(boolean quick, Path out, long seed, Duration sessionTimeout, int blipDurations,
    int partitionTrials, int handoverTrials, int crashTrials, int randomTrials,
    Duration randomLength, int scaleLeases, Duration measureWindow, List<Contender> contenders,
    Set<Scenario> scenarios) {

  enum Scenario { BLIPS, PARTITIONS, HEALS, HANDOVER, CRASH, RANDOM, SCALE, OVERHEAD }

  BenchConfig {
    if (sessionTimeout.compareTo(Duration.ofSeconds(2)) < 0
        || sessionTimeout.compareTo(Duration.ofSeconds(10)) > 0) {
      // The in-process server (tick 500 ms) negotiates T only within [1 s, 10 s]; below 2 s the
      // default G2 bound leaves amlease no grace at all.
      throw new IllegalArgumentException("--session-timeout (T) must be within [2s, 10s], was "
          + io.amlease.lease.Durations.format(sessionTimeout));
    }
    if (blipDurations < 1 || partitionTrials < 0 || handoverTrials < 0 || crashTrials < 0
        || randomTrials < 0 || scaleLeases < 1) {
      throw new IllegalArgumentException("trial counts must be non-negative (blips and leases >= 1)");
    }
    contenders = List.copyOf(contenders);
    scenarios = Set.copyOf(scenarios);
  }

  /** Under five minutes on two cores: T = 4 s, a few trials each, 50 leases. */
  static BenchConfig quick(Path out, long seed) {
    return new BenchConfig(true, out, seed, Duration.ofSeconds(4), 3, 2, 10, 1, 2,
        Duration.ofSeconds(20), 50, Duration.ofSeconds(5), Contender.CURATOR,
        EnumSet.allOf(Scenario.class));
  }

  /** The documented run: T = 10 s, more repetitions, 1,000 leases. */
  static BenchConfig full(Path out, long seed) {
    return new BenchConfig(false, out, seed, Duration.ofSeconds(10), 5, 5, 10, 3, 5,
        Duration.ofSeconds(45), 1000, Duration.ofSeconds(10), Contender.CURATOR,
        EnumSet.allOf(Scenario.class));
  }

  /**
   * The same run with another T (e.g. to compare with a figure measured at that T). Blip durations
   * and partition lengths follow T; trial counts stay.
   */
  BenchConfig withSessionTimeout(Duration t) {
    return new BenchConfig(quick, out, seed, t, blipDurations, partitionTrials, handoverTrials,
        crashTrials, randomTrials, randomLength, scaleLeases, measureWindow, contenders, scenarios);
  }

  /**
   * {@code --flink}: the Flink plugin against Flink's own ZooKeeper HA, without and with
   * tolerate-suspended-connections: blips, partitions (also healed at the take-over), handovers and
   * the randomized trials with process pauses; not the crash, scale and overhead scenarios, which
   * measure the lease itself.
   */
  BenchConfig flink() {
    return new BenchConfig(quick, out, seed, sessionTimeout, blipDurations, partitionTrials,
        handoverTrials, crashTrials, randomTrials, randomLength, scaleLeases, measureWindow,
        Contender.FLINK, EnumSet.of(Scenario.BLIPS, Scenario.PARTITIONS, Scenario.HEALS,
            Scenario.HANDOVER, Scenario.RANDOM));
  }

  String mode() {
    String m = quick ? "quick" : "full";
    return contenders.equals(Contender.FLINK) ? m + " flink" : m;
  }

  boolean runs(Scenario s) {
    return scenarios.contains(s);
  }
}
