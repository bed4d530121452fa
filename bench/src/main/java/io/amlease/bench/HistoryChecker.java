package io.amlease.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Replays a {@link History} and names every safety violation in it: two holders acting at once, the
 * leader node's epoch going down, and a write from a superseded epoch that ZooKeeper accepted after a
 * newer epoch had written.
 */
final class HistoryChecker {
  private HistoryChecker() {}

  static List<String> violations(History h) {
    List<String> found = new ArrayList<>();
    overlaps(h.intervals(), found);
    leaderEpochs(h.leaderVersions(), found);
    supersededWrites(h.writes(), found);
    return found;
  }

  private static void overlaps(List<History.Interval> intervals, List<String> found) {
    for (int i = 0; i < intervals.size(); i++) {
      for (int j = i + 1; j < intervals.size(); j++) {
        History.Interval a = intervals.get(i);
        History.Interval b = intervals.get(j);
        if (a.holder().equals(b.holder())) {
          continue;
        }
        long overlap = Math.min(a.stopNanos(), b.stopNanos()) - Math.max(a.startNanos(), b.startNanos());
        if (overlap > 0) {
          found.add("two leaders: " + a.holder() + " (epoch " + a.epoch() + ") and " + b.holder()
              + " (epoch " + b.epoch() + ") acted at once for "
              + TimeUnit.NANOSECONDS.toMillis(overlap) + " ms");
        }
      }
    }
  }

  private static void leaderEpochs(List<History.LeaderVersion> versions, List<String> found) {
    long highest = Long.MIN_VALUE;
    for (History.LeaderVersion v : versions.stream()
        .sorted(Comparator.comparingLong(History.LeaderVersion::mzxid)).toList()) {
      if (v.epoch() < highest) {
        found.add("epoch went backwards: leader node at zxid 0x" + Long.toHexString(v.mzxid())
            + " names epoch " + v.epoch() + " after epoch " + highest);
      }
      highest = Math.max(highest, v.epoch());
    }
  }

  private static void supersededWrites(List<History.Write> writes, List<String> found) {
    long highest = Long.MIN_VALUE;
    String highestHolder = null;
    for (History.Write w : writes.stream().sorted(Comparator.comparingInt(History.Write::version))
        .toList()) {
      if (w.epoch() < highest) {
        found.add("superseded write: " + w.holder() + " wrote in epoch " + w.epoch() + " (version "
            + w.version() + ") after " + highestHolder + " had written in epoch " + highest);
      }
      if (w.epoch() > highest) {
        highest = w.epoch();
        highestHolder = w.holder();
      }
    }
  }
}
