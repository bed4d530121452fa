package io.amlease.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Replays a {@link History} and names every safety violation in it: two holders acting at once, the
 * leader node's epoch going down, and a write from a superseded epoch that ZooKeeper accepted after a
 * newer epoch had written.
 *
 * <p>Process pauses are judged by DESIGN.md's own terms. G2 (no two acting holders) rests on timing
 * and explicitly does not hold while a holder's process is stopped; G3 (fencing, epochs never going
 * back) does. A stopped holder cannot act, so its stopped time is left out of its acting interval. What
 * remains of an interval after a pause in it — the holder resumed still believing it leads, until it
 * notices — is where a pause lets two holders act at once: such overlaps are reported apart, as
 * {@linkplain Verdict#pauseOverlaps() pause overlaps}, and are not violations. Every other overlap, and
 * every epoch or fencing failure, still is.
 */
final class HistoryChecker {
  private HistoryChecker() {}

  /**
   * What the checker found.
   *
   * @param violations safety violations, one sentence each
   * @param pauseOverlaps overlaps explained by a process pause (not violations)
   * @param supersededWrites how many of the violations are accepted writes from a superseded epoch
   *     (what fencing, G3, must prevent even under pauses)
   */
  record Verdict(List<String> violations, List<PauseOverlap> pauseOverlaps, int supersededWrites) {
    /** The longest pause overlap in milliseconds, 0 when there was none. */
    double pauseOverlapMaxMs() {
      return Waits.ms(pauseOverlaps.stream().mapToLong(PauseOverlap::nanos).max().orElse(0));
    }
  }

  /** Two holders acted at once for {@code nanos}, in time that followed a pause of one of them. */
  record PauseOverlap(String description, long nanos) {}

  /** A stretch of one acting interval, and whether a pause within that interval came before it. */
  private record Piece(long fromNanos, long toNanos, boolean afterPause) {}

  static List<String> violations(History h) {
    return check(h).violations();
  }

  static Verdict check(History h) {
    List<String> found = new ArrayList<>();
    List<PauseOverlap> pauseOverlaps = new ArrayList<>();
    overlaps(h, found, pauseOverlaps);
    leaderEpochs(h.leaderVersions(), found);
    int before = found.size();
    supersededWrites(h.writes(), found);
    return new Verdict(List.copyOf(found), List.copyOf(pauseOverlaps), found.size() - before);
  }

  private static void overlaps(History h, List<String> found, List<PauseOverlap> pauseOverlaps) {
    List<History.Interval> intervals = h.intervals();
    for (int i = 0; i < intervals.size(); i++) {
      for (int j = i + 1; j < intervals.size(); j++) {
        History.Interval a = intervals.get(i);
        History.Interval b = intervals.get(j);
        if (a.holder().equals(b.holder())) {
          continue;
        }
        long plain = 0;
        long paused = 0;
        for (Piece pa : acting(a, h.pauses())) {
          for (Piece pb : acting(b, h.pauses())) {
            long overlap = Math.min(pa.toNanos(), pb.toNanos())
                - Math.max(pa.fromNanos(), pb.fromNanos());
            if (overlap <= 0) {
              continue;
            }
            if (pa.afterPause() || pb.afterPause()) {
              paused += overlap;
            } else {
              plain += overlap;
            }
          }
        }
        String who = a.holder() + " (epoch " + a.epoch() + ") and " + b.holder() + " (epoch "
            + b.epoch() + ")";
        if (plain > 0) {
          found.add("two leaders: " + who + " acted at once for "
              + TimeUnit.NANOSECONDS.toMillis(plain) + " ms");
        }
        if (paused > 0) {
          pauseOverlaps.add(new PauseOverlap("after a pause: " + who + " acted at once for "
              + TimeUnit.NANOSECONDS.toMillis(paused) + " ms", paused));
        }
      }
    }
  }

  /**
   * {@code a} without the time its holder's process was stopped; each piece after the first pause
   * that falls within {@code a} is marked, since from then on the holder may act on a belief it
   * formed before it was stopped.
   */
  private static List<Piece> acting(History.Interval a, List<History.Pause> pauses) {
    List<Piece> out = new ArrayList<>();
    long cursor = a.startNanos();
    boolean afterPause = false;
    for (History.Pause p : pauses.stream().filter(p -> p.holder().equals(a.holder())
        && p.toNanos() > a.startNanos() && p.fromNanos() < a.stopNanos())
        .sorted(Comparator.comparingLong(History.Pause::fromNanos)).toList()) {
      if (p.fromNanos() > cursor) {
        out.add(new Piece(cursor, p.fromNanos(), afterPause));
      }
      cursor = Math.max(cursor, p.toNanos());
      afterPause = true;
    }
    if (cursor < a.stopNanos()) {
      out.add(new Piece(cursor, a.stopNanos(), afterPause));
    }
    return out;
  }

  static void leaderEpochs(List<History.LeaderVersion> versions, List<String> found) {
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
