package io.amlease.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A seeded fault schedule for one randomized trial: how many holders, and a sequence of outages
 * (silent or reset, 0.1 T to 2.5 T, so both blips and partitions) of one holder's path, process pauses
 * (SIGSTOP … SIGCONT) of one holder, drawn from the same range, and restarts of the ZooKeeper server.
 * A pause longer than T lets the server expire the stopped holder's session while it still believes it
 * leads: the case DESIGN.md G3 (fencing) exists for. The same seed gives the same schedule to every
 * contender.
 *
 * @param holders 2 or 3
 * @param steps in order, each after a pause of {@link Step#gapBefore()}
 */
record RandomSchedule(long seed, int holders, List<Step> steps) {

  enum Kind { SILENT, RESET, PAUSE, SERVER_RESTART }

  /** One fault: {@code holder} and {@code duration} do not apply to a server restart. */
  record Step(Duration gapBefore, Kind kind, int holder, Duration duration) {}

  static RandomSchedule generate(long seed, Duration t, Duration length) {
    // SplittableRandom mixes its seed: java.util.Random's first draws for seeds 1, 2, 3… are nearly
    // alike, which gave every trial the same number of holders.
    SplittableRandom r = new SplittableRandom(seed);
    int holders = 2 + r.nextInt(2);
    List<Step> steps = new ArrayList<>();
    long used = 0;
    while (true) {
      Duration gap = Duration.ofMillis(200 + r.nextInt(1500));
      int roll = r.nextInt(100);
      Kind kind = roll < 35 ? Kind.SILENT : roll < 65 ? Kind.RESET : roll < 85 ? Kind.PAUSE
          : Kind.SERVER_RESTART;
      Duration d = kind == Kind.SERVER_RESTART ? Duration.ZERO
          : Duration.ofNanos((long) (t.toNanos() * (0.1 + 2.4 * r.nextDouble())));
      used += gap.toNanos() + d.toNanos();
      if (used > length.toNanos()) {
        break;
      }
      steps.add(new Step(gap, kind, r.nextInt(holders), d));
    }
    return new RandomSchedule(seed, holders, List.copyOf(steps));
  }
}
