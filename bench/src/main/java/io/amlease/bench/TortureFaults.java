package io.amlease.bench;

import io.amlease.testkit.ZkEnsemble;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.SplittableRandom;

/**
 * Applies a {@link TortureSchedule}'s steps to a trial's ensemble and to every lane at once — a
 * fault on holder h hits holder h of each contender in the same moment — and records what each
 * step did, relative to the start of the faults.
 */
final class TortureFaults {
  /** How long the links to the other servers refuse, so that sessions move onto a shrunk server. */
  static final Duration PUSH = Duration.ofSeconds(2);

  private final ZkEnsemble ensemble;
  private final List<TortureLane> lanes;
  private final long seed;
  private final long origin;
  private final List<String> events;

  TortureFaults(ZkEnsemble ensemble, List<TortureLane> lanes, long seed, long origin,
      List<String> events) {
    this.ensemble = ensemble;
    this.lanes = lanes;
    this.seed = seed;
    this.origin = origin;
    this.events = events;
  }

  /** Applies one step of the ensemble track; returns once every server serves again. */
  void ensemble(TortureSchedule.Step st) throws java.io.IOException {
    Duration d = st.duration();
    // The previous step's server may still be rejoining; each fault starts from a whole quorum.
    ensemble.awaitServing(ensemble.ids());
    long at = System.nanoTime();
    switch (st.kind()) {
      case ISOLATE_SERVER -> {
        int[] target = isolationTarget(st);
        ensemble.isolate(target[0]);
        log(at, st, "server " + target[0] + " (" + (target[1] == 1 ? "leader" : "follower") + ", "
            + target[2] + " connections of acting holders)");
        try {
          Waits.sleep(d);
        } finally {
          ensemble.heal(target[0]);
        }
      }
      case LEADER_KILL -> {
        OptionalInt leader = ensemble.leader();
        if (leader.isEmpty()) {
          log(at, st, "skipped: no leader");
          return;
        }
        ensemble.kill(leader.getAsInt());
        log(at, st, "server " + leader.getAsInt());
        try {
          Waits.sleep(d);
        } finally {
          ensemble.restart(leader.getAsInt());
        }
      }
      case ENSEMBLE_RESTART -> {
        for (int id : ensemble.ids()) {
          ensemble.kill(id);
        }
        log(at, st, "all servers");
        try {
          Waits.sleep(d);
        } finally {
          for (int id : ensemble.ids()) {
            ensemble.restart(id);
          }
        }
      }
      case TIMEOUT_SHRINK -> shrink(st, at);
      default -> throw new IllegalArgumentException("not an ensemble fault: " + st.kind());
    }
    ensemble.awaitServing(ensemble.ids());
  }

  /**
   * A rolling restart's step: one follower comes back with a {@code maxSessionTimeout} of 4 to 9
   * ticks (T is 10), every holder's links to the other servers refuse for {@link #PUSH} so that its
   * session reconnects there and is clamped, then the server is restarted with its own maximum.
   */
  private void shrink(TortureSchedule.Step st, long at) throws java.io.IOException {
    int[] ids = ensemble.ids();
    int[] followers = ensemble.followers();
    SplittableRandom r = new SplittableRandom(seed ^ st.gapBefore().toNanos() ^ 0x5eedL);
    int id = followers.length > 0 ? followers[r.nextInt(followers.length)] : ids[r.nextInt(ids.length)];
    int tick = ensemble.timing().tickMillis();
    int ticks = 4 + r.nextInt(6);
    ensemble.restartWith(id, "maxSessionTimeout", Integer.toString(ticks * tick));
    int index = java.util.Arrays.stream(ids).boxed().toList().indexOf(id);
    lanes.forEach(l -> l.pushTo(index));
    log(at, st, "server " + id + " restarted with maxSessionTimeout " + ticks * tick + " ms ("
        + ticks + " ticks), every session pushed onto it");
    try {
      Waits.sleep(PUSH);
    } finally {
      lanes.forEach(TortureLane::unpush);
    }
    try {
      Waits.sleep(st.duration().minus(PUSH));
    } finally {
      ensemble.restartWith(id, "maxSessionTimeout", Integer.toString(20 * tick));
    }
  }

  /**
   * The follower (or, without a follower, the leader) that the most acting holders of all lanes are
   * connected to: the case in which a holder's renewals could be answered by a server that has lost
   * its quorum. {id, 1 if it leads, connections}.
   */
  private int[] isolationTarget(TortureSchedule.Step st) {
    int[] ids = ensemble.ids();
    int[] followers = ensemble.followers();
    int[] candidates = followers.length > 0 ? followers : new int[] {ensemble.leader().orElse(ids[0])};
    SplittableRandom tie = new SplittableRandom(seed ^ st.gapBefore().toNanos());
    int best = candidates[tie.nextInt(candidates.length)];
    int bestCount = connections(best, ids);
    for (int id : candidates) {
      int n = connections(id, ids);
      if (n > bestCount) {
        best = id;
        bestCount = n;
      }
    }
    return new int[] {best, followers.length > 0 ? 0 : 1, bestCount};
  }

  private int connections(int id, int[] ids) {
    int index = java.util.Arrays.stream(ids).boxed().toList().indexOf(id);
    return lanes.stream().mapToInt(l -> l.actingConnections(index)).sum();
  }

  /** Applies one step of the holder track to holder {@code st.holder()} of every lane. */
  void holder(TortureSchedule.Step st) throws Exception {
    int h = st.holder();
    Duration d = st.duration();
    long at = System.nanoTime();
    switch (st.kind()) {
      case CLIENT_SILENT, CLIENT_RESET -> {
        lanes.forEach(l -> {
          if (st.kind() == TortureSchedule.Kind.CLIENT_SILENT) {
            l.silent(h);
          } else {
            l.reset(h);
          }
        });
        log(at, st, "h" + h);
        try {
          Waits.sleep(d);
        } finally {
          lanes.forEach(l -> l.heal(h));
        }
      }
      case PAUSE -> {
        Map<TortureLane, SupervisedHolder.Suspended> stopped = new LinkedHashMap<>();
        try {
          for (TortureLane l : lanes) {
            Optional<SupervisedHolder.Suspended> s = l.suspend(h);
            s.ifPresent(x -> stopped.put(l, x));
          }
          log(at, st, "h" + h + " (" + stopped.size() + " of " + lanes.size() + " lanes had a process)");
          Waits.sleep(d);
        } finally {
          for (var e : stopped.entrySet()) {
            e.getKey().paused(e.getValue().resume());
          }
        }
      }
      case DELETEALL -> deleteall(st, h, at);
      case KILL_HOLDER -> {
        long killed = lanes.stream().filter(l -> l.kill(h, d)).count();
        log(at, st, "h" + h + " (" + killed + " of " + lanes.size() + " lanes had a process)");
        Waits.sleep(d);
      }
      default -> throw new IllegalArgumentException("not a holder fault: " + st.kind());
    }
  }

  /**
   * Freezes the acting holder of each lane (holder {@code h} where none acts) with everything it
   * started, deletes the lane's lease whole while it is frozen, and thaws it after the step's
   * duration: the schedule of issue 24 item 7, where the thawed holder's old token must be refused.
   */
  private void deleteall(TortureSchedule.Step st, int h, long at) throws Exception {
    Map<TortureLane, SupervisedHolder.Suspended> stopped = new LinkedHashMap<>();
    List<String> what = new java.util.ArrayList<>();
    try {
      for (TortureLane l : lanes) {
        int victim = l.actingHolder().orElse(h);
        l.suspendTree(victim).ifPresent(x -> stopped.put(l, x));
        what.add(l.contender.label() + ": h" + victim + " frozen, " + l.deleteLease());
      }
      log(at, st, String.join("; ", what));
      Waits.sleep(st.duration());
    } finally {
      for (var e : stopped.entrySet()) {
        e.getKey().paused(e.getValue().resume());
      }
    }
  }

  /** What step {@code st}, begun at {@code at}, did. */
  private void log(long at, TortureSchedule.Step st, String what) {
    events.add(String.format(java.util.Locale.ROOT, "+%.2fs %s %s for %s",
        (at - origin) / 1e9, st.kind().label(), what,
        Summary.fmt(st.duration().toMillis())));
  }

}
