package io.amlease.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns one lane's raw records — each holder process's term edges, when it was killed or exited,
 * what its COMMANDs' processes recorded — into the {@link TortureHistory} the checker reads.
 *
 * <p>A term ends at its revocation edge; a term still open when its holder process was killed (or
 * exited without a revocation) ends then. A COMMAND whose holder logged no grant for it (a process
 * killed between the two) gets a term from its own first stamp. amlease's terms are its epochs; a
 * latch's are numbered across the lane in the order they began ({@link LatchTerms}). Everything is
 * cut at the trial's end: what the bench's own clean-up does after it is not judged.
 *
 * <p>An operator's {@code deleteall} of the lease starts its epochs again at 1 in a new incarnation
 * of the epoch node, so amlease's terms are numbered by incarnation first: the lane's incarnations
 * in the order their first term began, and term {@code g·}{@value #PER_INCARNATION}{@code  + epoch}
 * in the g-th (0-based); with one incarnation a term's number is its epoch.
 */
final class LaneHistory {
  /** The term numbers an incarnation spans: more epochs than a trial ever reaches. */
  static final long PER_INCARNATION = 10_000;

  private record Key(String life, String incarnation, long term) {}

  private LaneHistory() {}

  static TortureHistory of(Contender c, List<SupervisedHolder.Life> lives,
      List<ActorLogs.Command> commands, List<History.Pause> pauses,
      List<History.LeaderVersion> versions, long originNanos, long endNanos) {
    Map<String, SupervisedHolder.Life> byName = new LinkedHashMap<>();
    lives.forEach(l -> byName.put(l.name, l));
    Map<Key, long[]> spans = new LinkedHashMap<>();
    for (SupervisedHolder.Life life : lives) {
      for (ActorLogs.Edge e : life.edges()) {
        Key k = new Key(life.name, e.incarnation(), e.term());
        if (e.granted()) {
          spans.putIfAbsent(k, new long[] {e.nanos(), TortureHistory.Term.OPEN});
        } else if (spans.containsKey(k) && spans.get(k)[1] == TortureHistory.Term.OPEN) {
          spans.get(k)[1] = e.nanos();
        }
      }
    }
    for (ActorLogs.Command cmd : commands) {
      Key k = key(cmd);
      if (!spans.containsKey(k) && !cmd.actors().isEmpty()) {
        spans.put(k, new long[] {cmd.actors().stream().mapToLong(ActorLogs.Span::fromNanos).min()
            .orElseThrow(), TortureHistory.Term.OPEN});
      }
    }
    spans.forEach((k, span) -> {
      SupervisedHolder.Life life = byName.get(k.life());
      if (life != null && life.ended() && span[1] - life.endNanos() > 0) {
        span[1] = life.endNanos();
      }
    });
    LatchTerms latch = c == Contender.AMLEASE ? null : LatchTerms.of(spans.entrySet().stream()
        .map(e -> new Timeline.Event(e.getKey().life(), Timeline.Edge.START, e.getKey().term(),
            e.getValue()[0])).toList());
    Map<String, Long> generation = generations(spans);

    List<TortureHistory.Term> terms = new ArrayList<>();
    spans.forEach((k, span) -> {
      if (span[0] - endNanos < 0) {
        terms.add(new TortureHistory.Term(k.life(), global(latch, generation, k), span[0],
            span[1] == TortureHistory.Term.OPEN || span[1] - endNanos >= 0
                ? TortureHistory.Term.OPEN : span[1]));
      }
    });
    List<TortureHistory.Actor> actors = new ArrayList<>();
    List<History.Write> writes = new ArrayList<>();
    for (ActorLogs.Command cmd : commands) {
      Key k = key(cmd);
      if (!spans.containsKey(k)) {
        continue;
      }
      long term = global(latch, generation, k);
      for (ActorLogs.Span s : cmd.actors()) {
        long to = s.toNanos() - endNanos > 0 ? endNanos : s.toNanos();
        if (to - s.fromNanos() > 0) {
          actors.add(new TortureHistory.Actor(cmd.life(), term, s.role(), s.fromNanos(), to));
        }
      }
      cmd.writes().stream().filter(w -> w.nanos() - endNanos <= 0)
          .forEach(w -> writes.add(new History.Write(cmd.life(), term, w.version())));
    }
    return new TortureHistory(originNanos, actors, terms, versions, writes, pauses);
  }

  private static Key key(ActorLogs.Command cmd) {
    return new Key(cmd.life(), cmd.incarnation(), cmd.localTerm());
  }

  /** Each incarnation's place in the order in which its first term began. */
  private static Map<String, Long> generations(Map<Key, long[]> spans) {
    Map<String, Long> first = new LinkedHashMap<>();
    spans.forEach((k, span) -> first.merge(k.incarnation(), span[0], (a, b) -> a - b <= 0 ? a : b));
    List<String> order = first.entrySet().stream()
        .sorted((a, b) -> Long.compare(a.getValue() - b.getValue(), 0)).map(Map.Entry::getKey)
        .toList();
    Map<String, Long> g = new LinkedHashMap<>();
    for (int i = 0; i < order.size(); i++) {
      g.put(order.get(i), (long) i);
    }
    return g;
  }

  private static long global(LatchTerms latch, Map<String, Long> generation, Key k) {
    return latch == null ? generation.get(k.incarnation()) * PER_INCARNATION + k.term()
        : latch.term(k.life(), k.term());
  }
}
