package io.amlease.lease;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * A clock that moves only when told. Timers due at or before the new time run on the thread that
 * calls {@link #advance}; while nobody advances it, the lease's renewals and watchdog are frozen, as
 * in a process pause in which the monotonic clock also stopped (a VM freeze).
 */
public final class ManualClock implements Clock {
  private long now = 1_000_000_000L;
  private long seq;
  private final PriorityQueue<Entry> timers = new PriorityQueue<>();

  private final class Entry implements Comparable<Entry>, Timer {
    final long due;
    final long order = seq++;
    final Runnable task;
    boolean cancelled;

    Entry(long due, Runnable task) {
      this.due = due;
      this.task = task;
    }

    @Override
    public int compareTo(Entry o) {
      return due != o.due ? Long.compare(due, o.due) : Long.compare(order, o.order);
    }

    @Override
    public void cancel() {
      synchronized (ManualClock.this) {
        cancelled = true;
      }
    }
  }

  @Override
  public synchronized long nanoTime() {
    return now;
  }

  @Override
  public synchronized Timer schedule(Runnable task, Duration delay) {
    Entry e = new Entry(now + Math.max(0, delay.toNanos()), task);
    timers.add(e);
    return e;
  }

  /** Moves time forward by {@code d}, running due timers in order (outside the clock's lock). */
  public void advance(Duration d) {
    long target;
    synchronized (this) {
      target = now + d.toNanos();
    }
    while (true) {
      List<Runnable> due = new ArrayList<>();
      synchronized (this) {
        Entry next = timers.peek();
        if (next == null || next.due > target) {
          now = target;
          return;
        }
        timers.poll();
        now = Math.max(now, next.due);
        if (!next.cancelled) {
          due.add(next.task);
        }
      }
      due.forEach(Runnable::run);
    }
  }
}
