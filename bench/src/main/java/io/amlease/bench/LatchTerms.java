package io.amlease.bench;

import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Numbers Curator latch terms across holder processes. A latch has no epoch, and a holder in its own
 * process can only count its own terms (1, 2, … per process, as its local {@link Timeline} does); the
 * term an outside observer would assign — the order in which holders began acting, across all of
 * them — is only known once every holder's start edges are in. Ordered by their stamps, not by when
 * their reports arrived: a holder stopped between stamping and printing reports late.
 */
final class LatchTerms {
  private final Map<String, Map<Long, Long>> global;

  private LatchTerms(Map<String, Map<Long, Long>> global) {
    this.global = global;
  }

  /** From every edge of the trial, each START carrying its holder's own term number. */
  static LatchTerms of(List<Timeline.Event> events) {
    Map<String, Map<Long, Long>> global = new HashMap<>();
    long next = 0;
    for (Timeline.Event e : events.stream().filter(e -> e.edge() == Timeline.Edge.START)
        .sorted(Comparator.comparingLong(Timeline.Event::nanos)).toList()) {
      global.computeIfAbsent(e.holder(), h -> new HashMap<>()).put(e.epoch(), ++next);
    }
    return new LatchTerms(global);
  }

  /** The trial-wide term of {@code holder}'s own term {@code localTerm}. */
  long term(String holder, long localTerm) {
    Long t = global.getOrDefault(holder, Map.of()).get(localTerm);
    if (t == null) {
      throw new IllegalStateException(holder + " reported term " + localTerm + " without starting it");
    }
    return t;
  }

  History.Interval apply(History.Interval i) {
    return new History.Interval(i.holder(), term(i.holder(), i.epoch()), i.startNanos(), i.stopNanos());
  }

  History.Write apply(History.Write w) {
    return new History.Write(w.holder(), term(w.holder(), w.epoch()), w.version());
  }
}
