package io.amlease.bench;

import io.amlease.lease.zk.ZkClients;
import io.amlease.testkit.ZkEnsemble;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;

/**
 * One torture trial: a fresh 3-server ensemble, one {@link TortureLane} per contender on it, and one
 * {@link TortureSchedule} applied to all lanes at the same moments ({@link TortureFaults}): its two
 * tracks at once (once every contender's first writer writes), then 2 T of quiet, then each lane's
 * history goes to the {@link TortureChecker}.
 * Throughout, the processes of ended terms that still act are ended once they are findings.
 */
final class TortureTrial {
  /** A dozen JVMs start at once on two cores, and the first election waits for all of them. */
  private static final Duration SETUP = Duration.ofSeconds(90);
  private static final Duration SWEEP_EVERY = Duration.ofMillis(500);

  /**
   * What one trial found, per contender.
   *
   * @param events what the schedule did, and when (relative to the start of the faults)
   * @param counts per contender: how much the trial exercised
   * @param orphansEnded per contender: processes the bench ended after they had outlived their term
   */
  record Outcome(long seed, Map<Contender, TortureChecker.Verdict> verdicts,
      Map<Contender, Counts> counts, Map<Contender, Integer> orphansEnded, List<String> events,
      double seconds, HolderClock clock) {}

  /** Terms begun, processes that acted, writes accepted. */
  record Counts(int terms, int processes, int writes) {}

  private final TortureConfig cfg;
  private final TortureSchedule schedule;
  private final List<String> events = new CopyOnWriteArrayList<>();
  private final Map<Contender, Integer> swept = new ConcurrentHashMap<>();
  private final List<TortureLane> lanes = new ArrayList<>();
  private ZkEnsemble ensemble;
  private long origin;

  private TortureTrial(TortureConfig cfg, TortureSchedule schedule) {
    this.cfg = cfg;
    this.schedule = schedule;
  }

  /**
   * Runs {@code schedule}; every process it starts carries {@code token} in its command line and
   * records under {@code work}.
   */
  static Outcome run(TortureConfig cfg, TortureSchedule schedule, Path work, String token)
      throws Exception {
    return new TortureTrial(cfg, schedule).run(work, token);
  }

  private Outcome run(Path work, String token) throws Exception {
    long began = System.nanoTime();
    UptimeClock clock = UptimeClock.calibrate();
    // A faked clock is measured before it is trusted: a trial whose rate is not what was asked
    // fails here, before anything runs.
    HolderClock holderClock = schedule.clockRate().isPresent()
        ? HolderClock.probe(schedule.clockRate().get().rate(), clock) : HolderClock.REAL;
    schedule.clockRate().ifPresent(r -> events.add(String.format(java.util.Locale.ROOT,
        "clock-rate: h%d's clocks at %.3f (probe: %.4f)%s", r.holder(), r.rate(),
        holderClock.measuredRate(), r.withinRho() ? ", within ρ" : ", outside ρ")));
    cfg.contenders().forEach(c -> swept.put(c, 0));
    ScheduledExecutorService sweeper = Executors.newSingleThreadScheduledExecutor(daemon("sweeper"));
    try (ZkEnsemble e = ZkEnsemble.start(cfg.ensembleTiming());
         CuratorFramework observer = ZkClients.connectReader(e.connectString(), Duration.ofSeconds(10))) {
      ensemble = e;
      try {
        for (Contender c : cfg.contenders()) {
          lanes.add(new TortureLane(c, schedule.holders(), e, observer, work.resolve(c.label()),
              token, cfg.sessionTimeout(), cfg.stopTimeout(), schedule.clockRate(), holderClock));
        }
        lanes.forEach(TortureLane::start);
        // Faults start once every contender acts: its leader's COMMAND has had a write accepted.
        // A fault that falls before the first writer JVM is up tests nothing about writes.
        if (!Waits.until(() -> failed() || lanes.stream().allMatch(l -> l.hasLeader()
            && l.hasWritten()), SETUP) || failed()) {
          throw new IllegalStateException("not every contender had a leader that wrote within "
              + SETUP.toSeconds() + " s" + lanes.stream().map(TortureLane::failure)
              .flatMap(Optional::stream).map(f -> ": " + f).findFirst().orElse(""));
        }
        origin = System.nanoTime();
        Duration after = cfg.stopAllowance().plus(TortureLane.SWEEP_MARGIN);
        sweeper.scheduleWithFixedDelay(() -> lanes.forEach(l -> swept.merge(l.contender,
            l.sweepOrphans(System.nanoTime(), after), Integer::sum)), 0, SWEEP_EVERY.toMillis(),
            TimeUnit.MILLISECONDS);
        runTracks();
        restore();
        Waits.sleep(cfg.quiet());
        long end = System.nanoTime();
        sweeper.shutdownNow();
        lanes.forEach(TortureLane::stopHolders);
        Map<Contender, TortureChecker.Verdict> verdicts = new LinkedHashMap<>();
        Map<Contender, Counts> counts = new LinkedHashMap<>();
        for (TortureLane l : lanes) {
          TortureHistory h = l.history(origin, end, clock);
          verdicts.put(l.contender, TortureChecker.check(h, cfg.tolerances()));
          counts.put(l.contender, new Counts(h.terms().size(), h.actors().size(), h.writes().size()));
        }
        return new Outcome(schedule.seed(), verdicts, counts, Map.copyOf(swept), List.copyOf(events),
            Math.round((System.nanoTime() - began) / 1e8) / 10.0, holderClock);
      } finally {
        sweeper.shutdownNow();
        lanes.forEach(TortureLane::close);
        endMarked(token);
      }
    }
  }

  /** Whether a holder process could not be started at all. */
  private boolean failed() {
    return lanes.stream().anyMatch(l -> l.failure().isPresent());
  }

  /** Both tracks at once; the first failure fails the trial once both have ended. */
  private void runTracks() throws Exception {
    ExecutorService tracks = Executors.newFixedThreadPool(2, daemon("track"));
    try {
      TortureFaults faults = new TortureFaults(ensemble, lanes, schedule.seed(), origin, events);
      Future<?> a = tracks.submit(() -> {
        for (TortureSchedule.Step st : schedule.ensemble()) {
          Waits.sleep(st.gapBefore());
          faults.ensemble(st);
        }
        return null;
      });
      Future<?> b = tracks.submit(() -> {
        for (TortureSchedule.Step st : schedule.holderFaults()) {
          Waits.sleep(st.gapBefore());
          faults.holder(st);
        }
        return null;
      });
      Exception first = null;
      for (Future<?> f : List.of(a, b)) {
        try {
          f.get();
        } catch (ExecutionException e) {
          first = first != null ? first : e.getCause() instanceof Exception x ? x : e;
        }
      }
      if (first != null) {
        throw first;
      }
    } finally {
      tracks.shutdownNow();
    }
  }

  /** Whatever a failed step left behind: every link healed, every server up and serving. */
  private void restore() {
    lanes.forEach(TortureLane::healAll);
    for (int id : ensemble.ids()) {
      ensemble.heal(id);
    }
    ensemble.awaitServing(ensemble.ids());
  }

  /**
   * SIGKILL to every process left with the run's token — holders' COMMANDs and any orphans — until
   * none is left (an orphan's shell may fork a {@code sleep} as it dies).
   */
  static void endMarked(String token) {
    Waits.until(() -> {
      List<Long> left = ProcessSignals.marked(token);
      left.forEach(pid -> ProcessSignals.killIfMarked(pid, token));
      return left.isEmpty();
    }, Duration.ofSeconds(10));
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, "torture-" + name);
      t.setDaemon(true);
      return t;
    };
  }
}
