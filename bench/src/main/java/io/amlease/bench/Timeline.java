package io.amlease.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Who started and stopped acting when, for every holder of one trial, on one {@link System#nanoTime()}
 * axis. Holders in one JVM call it from their listener callbacks, so edges are comparable; a holder in
 * its own process ({@link TrialHolder}) reports its edges with its own stamps, which are on the same
 * axis (see {@link HolderProcess}), and they are {@linkplain #record recorded} as they arrive.
 */
final class Timeline {
  enum Edge { START, STOP }

  record Event(String holder, Edge edge, long epoch, long nanos) {}

  private final List<Event> events = new CopyOnWriteArrayList<>();
  private final Consumer<Event> onEdge;
  private long terms;

  Timeline() {
    this(e -> { });
  }

  /**
   * @param onEdge told of each edge as it is recorded, on the recording thread: how a holder process
   *     passes its edges on
   */
  Timeline(Consumer<Event> onEdge) {
    this.onEdge = onEdge;
  }

  void started(String holder, long epoch) {
    record(new Event(holder, Edge.START, epoch, System.nanoTime()));
  }

  /**
   * Records a start for a holder that has no epoch of its own (a Curator latch) and numbers its term
   * by the order in which holders began acting: the term an outside observer would assign.
   */
  synchronized long startedNextTerm(String holder) {
    long term = ++terms;
    started(holder, term);
    return term;
  }

  void stopped(String holder, long epoch) {
    record(new Event(holder, Edge.STOP, epoch, System.nanoTime()));
  }

  /**
   * Records an edge stamped elsewhere (by a holder process). Edges of one holder must come in the
   * order they happened; holders may interleave in any order, since each edge carries its time.
   */
  void record(Event e) {
    events.add(e);
    onEdge.accept(e);
  }

  List<Event> events() {
    return List.copyOf(events);
  }

  /** The first {@code edge} of {@code holder} at or after {@code fromNanos}. */
  Optional<Event> first(String holder, Edge edge, long fromNanos) {
    return events.stream().filter(e -> e.holder().equals(holder) && e.edge() == edge
        && e.nanos() - fromNanos >= 0).findFirst();
  }

  long count(String holder, Edge edge, long fromNanos, long toNanos) {
    return events.stream().filter(e -> e.holder().equals(holder) && e.edge() == edge
        && e.nanos() - fromNanos >= 0 && e.nanos() - toNanos <= 0).count();
  }

  /**
   * Acting intervals up to {@code endNanos}: edges after it are ignored (the trial's own clean-up), and
   * an interval still open then ends there.
   */
  List<History.Interval> intervals(long endNanos) {
    List<History.Interval> out = new ArrayList<>();
    Map<String, Event> open = new HashMap<>();
    for (Event e : events) {
      if (e.nanos() - endNanos > 0) {
        continue;
      }
      if (e.edge() == Edge.START) {
        open.putIfAbsent(e.holder(), e);
      } else {
        Event s = open.remove(e.holder());
        if (s != null) {
          out.add(new History.Interval(e.holder(), s.epoch(), s.nanos(), e.nanos()));
        }
      }
    }
    open.values().forEach(s -> out.add(new History.Interval(s.holder(), s.epoch(), s.nanos(), endNanos)));
    return out;
  }
}
