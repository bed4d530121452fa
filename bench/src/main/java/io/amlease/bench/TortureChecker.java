package io.amlease.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Replays a {@link TortureHistory} and classifies what went wrong:
 * <ul>
 *   <li>{@link Kind#OVERLAP} (G2): a process of one term's COMMAND acted while a process of another
 *       term's did — any two processes of the two trees, wrapper, grandchildren and all;</li>
 *   <li>{@link Kind#ORPHAN} (G4): a process acted longer than the stop allowance after its term
 *       ended;</li>
 *   <li>{@link Kind#SUPERSEDED_WRITE} (G3): ZooKeeper accepted writes of an older term after a
 *       newer term had written (one finding per superseded term);</li>
 *   <li>{@link Kind#EPOCH_BACKWARDS} (G3): the leader node named a lower epoch after a higher one
 *       with no deletion of the whole lease between the two (an operator's {@code deleteall} starts
 *       the epochs again in a new incarnation; the terms' numbers say that order instead).</li>
 * </ul>
 *
 * <p><b>Tolerances.</b> Acting spans are inner bounds (a shell stamp is good to
 * {@link UptimeClock#RESOLUTION}, 10 ms, and the span starts one resolution after the first stamp),
 * so an overlap reported is one that surely happened; overlaps shorter than the resolution can go
 * unseen. A term's process may go on for the {@code stopAllowance} after the term ended: the
 * runner's stop-timeout (SIGTERM, then SIGKILL) plus time for signal delivery and the reaper's
 * 100 ms polls on a loaded machine.
 *
 * <p><b>Pauses</b> (as {@link HistoryChecker}): G2 rests on timing and does not hold while a holder's
 * process is stopped. An overlap is <em>pause-excused</em> from the moment the older term's holder
 * process was stopped, if that pause came at most {@code pauseReach} (one session timeout: the span
 * over which a holder's belief that it leads is formed) before the older term began, or later; an
 * orphan is excused if its holder was stopped while it should have been stopping it (between the
 * term's end and the end of the allowance). Excused findings are reported apart, not as violations.
 * G3 holds under pauses, so superseded writes and epochs never are excused. Each excused finding
 * says whether its pause stopped the runner alone (its COMMAND ran on: G4's dead-man's switch
 * should have left nothing to excuse) or the runner's whole tree, as a VM freeze does.
 */
final class TortureChecker {
  enum Kind {
    OVERLAP, ORPHAN, SUPERSEDED_WRITE, EPOCH_BACKWARDS;

    String label() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  /**
   * One finding; {@code nanos} is its extent (how long two acted at once, how late), 0 if none;
   * {@code wholeTree}: a pause-excused finding whose pause stopped the holder's whole tree.
   */
  record Finding(Kind kind, String description, long nanos, boolean wholeTree) {
    Finding(Kind kind, String description, long nanos) {
      this(kind, description, nanos, false);
    }
  }

  record Tolerances(Duration stopAllowance, Duration pauseReach) {}

  /**
   * @param violations every violation, of every kind
   * @param pauseExcused overlaps and orphans explained by a process pause (not violations)
   */
  record Verdict(List<Finding> violations, List<Finding> pauseExcused) {
    Map<Kind, Integer> byKind() {
      Map<Kind, Integer> m = new EnumMap<>(Kind.class);
      for (Kind k : Kind.values()) {
        m.put(k, 0);
      }
      violations.forEach(f -> m.merge(f.kind(), 1, Integer::sum));
      return m;
    }

    /** Excused findings whose pause stopped the runner alone, its COMMAND running on. */
    int pauseExcusedRunnerOnly() {
      return (int) pauseExcused.stream().filter(f -> !f.wholeTree()).count();
    }

    double pauseExcusedMaxMs() {
      return Waits.ms(pauseExcused.stream().mapToLong(Finding::nanos).max().orElse(0));
    }
  }

  private final TortureHistory h;
  private final Tolerances tol;
  private final List<Finding> violations = new ArrayList<>();
  private final List<Finding> excused = new ArrayList<>();

  private TortureChecker(TortureHistory h, Tolerances tol) {
    this.h = h;
    this.tol = tol;
  }

  static Verdict check(TortureHistory h, Tolerances tol) {
    TortureChecker c = new TortureChecker(h, tol);
    c.overlaps();
    c.orphans();
    c.leaderEpochs();
    c.supersededWrites();
    return new Verdict(List.copyOf(c.violations), List.copyOf(c.excused));
  }

  private void overlaps() {
    List<TortureHistory.Term> terms = h.terms().stream()
        .sorted(Comparator.comparingLong(TortureHistory.Term::term)).toList();
    for (int i = 0; i < terms.size(); i++) {
      for (int j = i + 1; j < terms.size(); j++) {
        if (terms.get(i).term() != terms.get(j).term()) {
          overlap(terms.get(i), terms.get(j));
        }
      }
    }
  }

  /** The longest overlap of any process of {@code older}'s tree with any of {@code newer}'s. */
  private void overlap(TortureHistory.Term older, TortureHistory.Term newer) {
    Optional<History.Pause> excuse = excuse(older);
    long excuseFrom = excuse.map(History.Pause::fromNanos).orElse(Long.MAX_VALUE);
    Longest plain = new Longest();
    Longest paused = new Longest();
    for (TortureHistory.Actor a : actorsOf(older)) {
      for (TortureHistory.Actor b : actorsOf(newer)) {
        long from = Math.max(a.fromNanos(), b.fromNanos());
        long to = Math.min(a.toNanos(), b.toNanos());
        if (to - from <= 0) {
          continue;
        }
        long split = Math.max(from, Math.min(to, excuseFrom));
        plain.offer(split - from, from, a, b);
        paused.offer(to - split, split, a, b);
      }
    }
    plain.report(Kind.OVERLAP, violations, "");
    boolean whole = excuse.map(History.Pause::wholeTree).orElse(false);
    paused.report(Kind.OVERLAP, excused, "after a " + (whole ? "whole-tree " : "") + "pause of "
        + older.holder() + ": ", whole);
  }

  /** The first pause of {@code t}'s holder from which overlaps of its tree are excused. */
  private Optional<History.Pause> excuse(TortureHistory.Term t) {
    long reach = t.startNanos() - tol.pauseReach().toNanos();
    return h.pauses().stream().filter(p -> p.holder().equals(t.holder()) && p.toNanos() - reach > 0)
        .min(Comparator.comparingLong(History.Pause::fromNanos));
  }

  private void orphans() {
    long allowance = tol.stopAllowance().toNanos();
    for (TortureHistory.Term t : h.terms()) {
      if (!t.ended()) {
        continue;
      }
      long limit = t.endNanos() + allowance;
      Optional<History.Pause> stopping = h.pauses().stream().filter(p -> p.holder().equals(t.holder())
          && p.fromNanos() - limit < 0 && p.toNanos() - t.endNanos() > 0).findFirst();
      boolean pausedWhileStopping = stopping.isPresent();
      boolean whole = stopping.map(History.Pause::wholeTree).orElse(false);
      for (TortureHistory.Actor a : actorsOf(t)) {
        long late = a.toNanos() - limit;
        if (late <= 0) {
          continue;
        }
        String what = a.role() + " of " + who(t) + " acted until " + at(a.toNanos()) + ", "
            + ms(a.toNanos() - t.endNanos()) + " after its term ended at " + at(t.endNanos())
            + " (allowance " + ms(allowance) + ")";
        (pausedWhileStopping ? excused : violations).add(new Finding(Kind.ORPHAN,
            (pausedWhileStopping ? "after a " + (whole ? "whole-tree " : "") + "pause of "
                + t.holder() + ": " : "") + what, late, whole));
      }
    }
  }

  /**
   * Writes accepted from a term after a newer term had written (ZooKeeper's version order), one
   * finding per superseded term and holder process: an orphan writer can be superseded thousands
   * of times, and that is one failure of fencing, not thousands.
   */
  private void supersededWrites() {
    long highest = Long.MIN_VALUE;
    String highestHolder = null;
    Map<String, long[]> byWriter = new java.util.LinkedHashMap<>();
    Map<String, String> firstSeen = new java.util.LinkedHashMap<>();
    for (History.Write w : h.writes().stream().sorted(Comparator.comparingInt(History.Write::version))
        .toList()) {
      if (w.epoch() < highest) {
        String key = w.holder() + " (term " + w.epoch() + ")";
        byWriter.computeIfAbsent(key, k -> new long[1])[0]++;
        firstSeen.putIfAbsent(key, "version " + w.version() + ", after " + highestHolder
            + " had written in term " + highest);
      }
      if (w.epoch() > highest) {
        highest = w.epoch();
        highestHolder = w.holder();
      }
    }
    byWriter.forEach((who, n) -> violations.add(new Finding(Kind.SUPERSEDED_WRITE, "superseded "
        + "writes: " + n[0] + " write" + (n[0] == 1 ? "" : "s") + " of " + who + " accepted, the first at "
        + firstSeen.get(who), 0)));
  }

  /**
   * The leader node's epochs, compared only within each stretch between two deletions of the whole
   * lease: the epochs of a new incarnation start again at 1.
   */
  private void leaderEpochs() {
    Map<Integer, List<History.LeaderVersion>> stretches = new java.util.TreeMap<>();
    for (History.LeaderVersion v : h.leaderVersions()) {
      int stretch = (int) h.leaseDeletions().stream().filter(z -> z < v.mzxid()).count();
      stretches.computeIfAbsent(stretch, k -> new ArrayList<>()).add(v);
    }
    List<String> found = new ArrayList<>();
    stretches.values().forEach(vs -> HistoryChecker.leaderEpochs(vs, found));
    found.forEach(s -> violations.add(new Finding(Kind.EPOCH_BACKWARDS, s, 0)));
  }

  private List<TortureHistory.Actor> actorsOf(TortureHistory.Term t) {
    return h.actors().stream().filter(a -> a.term() == t.term() && a.holder().equals(t.holder()))
        .toList();
  }

  private String at(long nanos) {
    return String.format(Locale.ROOT, "+%.3fs", (nanos - h.originNanos()) / 1e9);
  }

  private static String who(TortureHistory.Term t) {
    return t.holder() + " (term " + t.term() + ")";
  }

  private static String ms(long nanos) {
    return Summary.fmt(Waits.ms(nanos));
  }

  /** The longest overlap seen between two terms' trees, and where. */
  private final class Longest {
    private long nanos;
    private long from;
    private TortureHistory.Actor a;
    private TortureHistory.Actor b;

    void offer(long n, long at, TortureHistory.Actor x, TortureHistory.Actor y) {
      if (n > nanos) {
        nanos = n;
        from = at;
        a = x;
        b = y;
      }
    }

    void report(Kind kind, List<Finding> into, String prefix) {
      report(kind, into, prefix, false);
    }

    void report(Kind kind, List<Finding> into, String prefix, boolean wholeTree) {
      Optional.ofNullable(a).ifPresent(x -> into.add(new Finding(kind, prefix + "two terms acting: "
          + x.role() + " of " + x.holder() + " (term " + x.term() + ") and " + b.role() + " of "
          + b.holder() + " (term " + b.term() + ") acted at once for " + ms(nanos) + " from "
          + at(from), nanos, wholeTree)));
    }
  }
}
