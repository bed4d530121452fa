package io.amlease.bench;

import io.amlease.lease.zk.LeaderReader;
import io.amlease.lease.zk.ZkClients;
import io.amlease.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;

/**
 * Scenario 5: seeded random fault schedules across 2–3 holders, each in its own JVM and on its own
 * fault proxy, with process pauses and ZooKeeper server restarts; every acting holder writes to a
 * shared node every {@link TrialHolder#WRITE_EVERY} (fenced for amlease, plain for the latches).
 * {@link HistoryChecker} replays what was recorded. Each contender has its own server, so a restart
 * hits only its holders, at the same moment in the schedule.
 */
final class RandomTrials {
  /** Nine JVMs may start at once on two cores. */
  private static final Duration CHILD_START = Duration.ofSeconds(60);
  private static final Duration CHILD_FINISH = Duration.ofSeconds(10);

  private RandomTrials() {}

  static Map<Contender, ScenarioResult> run(BenchConfig cfg) throws Exception {
    Map<Contender, List<Map<String, Object>>> details = new LinkedHashMap<>();
    Map<Contender, List<Long>> seeds = new LinkedHashMap<>();
    Map<Contender, Integer> counts = new LinkedHashMap<>();
    Map<Contender, Integer> pauseOverlaps = new LinkedHashMap<>();
    Map<Contender, Double> pauseOverlapMax = new LinkedHashMap<>();
    for (Contender c : cfg.contenders()) {
      details.put(c, new ArrayList<>());
      seeds.put(c, new ArrayList<>());
      counts.put(c, 0);
      pauseOverlaps.put(c, 0);
      pauseOverlapMax.put(c, 0.0);
    }
    for (int i = 0; i < cfg.randomTrials(); i++) {
      RandomSchedule schedule = RandomSchedule.generate(cfg.seed() + i, cfg.sessionTimeout(),
          cfg.randomLength());
      Map<Contender, HistoryChecker.Verdict> found = Parallel.forEach(cfg.contenders(),
          c -> trial(c, schedule, cfg.sessionTimeout()));
      found.forEach((c, verdict) -> {
        List<String> v = verdict.violations();
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("seed", schedule.seed());
        d.put("holders", schedule.holders());
        d.put("faults", schedule.steps().size());
        d.put("pauses", schedule.steps().stream()
            .filter(st -> st.kind() == RandomSchedule.Kind.PAUSE).count());
        d.put("violations", v.size());
        d.put("examples", v.stream().limit(3).toList());
        d.put("superseded_writes", verdict.supersededWrites());
        d.put("pause_overlaps", verdict.pauseOverlaps().size());
        d.put("pause_overlap_max_ms", verdict.pauseOverlapMaxMs());
        d.put("pause_overlap_examples", verdict.pauseOverlaps().stream()
            .map(HistoryChecker.PauseOverlap::description).limit(3).toList());
        details.get(c).add(d);
        counts.merge(c, v.size(), Integer::sum);
        pauseOverlaps.merge(c, verdict.pauseOverlaps().size(), Integer::sum);
        pauseOverlapMax.merge(c, verdict.pauseOverlapMaxMs(), Math::max);
        if (!v.isEmpty()) {
          seeds.get(c).add(schedule.seed());
        }
      });
    }
    Map<Contender, ScenarioResult> out = new LinkedHashMap<>();
    for (Contender c : cfg.contenders()) {
      out.put(c, new ScenarioResult(cfg.randomTrials(), null, null, null, null, counts.get(c),
          seeds.get(c), details.get(c), pauseOverlaps.get(c), pauseOverlapMax.get(c)));
    }
    return out;
  }

  /**
   * One trial of {@code schedule} for contender {@code c}. Each holder runs in its own JVM (so that a
   * pause stops it alone) and reaches ZooKeeper through its own fault proxy in this JVM.
   */
  static HistoryChecker.Verdict trial(Contender c, RandomSchedule schedule, Duration t)
      throws Exception {
    String path = "/bench/random/" + c.label();
    String data = path + "/data";
    Timeline timeline = new Timeline();
    List<History.LeaderVersion> versions = new CopyOnWriteArrayList<>();
    List<HolderProcess.Write> writes = new CopyOnWriteArrayList<>();
    List<History.Pause> pauses = new ArrayList<>();
    List<FaultProxy> proxies = new ArrayList<>();
    List<HolderProcess> holders = new ArrayList<>();
    try (ZkServer server = ZkServer.start();
         CuratorFramework observer = ZkClients.connectReader(server.connectString(),
             Duration.ofSeconds(5));
         LeaderReader reader = new LeaderReader(observer, path)) {
      observer.create().creatingParentsIfNeeded().forPath(data);
      if (c.hasEpochs()) {
        reader.watch(s -> s.info().ifPresent(info -> versions.add(
            new History.LeaderVersion(s.mzxid(), info.epoch()))), e -> { });
      }
      try {
        for (int h = 0; h < schedule.holders(); h++) {
          FaultProxy proxy = FaultProxy.start(server.address());
          proxies.add(proxy);
          holders.add(HolderProcess.launch(c, "h" + h, proxy.connectString(), path, data, t,
              timeline, writes));
        }
        // One after another, as before holders had their own JVMs: h0 leads first.
        for (HolderProcess h : holders) {
          Pair.require(h.start(CHILD_START), c, "holder process " + h.holder() + " did not start",
              CHILD_START);
        }
        for (RandomSchedule.Step step : schedule.steps()) {
          Waits.sleep(step.gapBefore());
          switch (step.kind()) {
            case SILENT, RESET -> {
              FaultProxy proxy = proxies.get(step.holder());
              Blips.inject(proxy, step.kind() == RandomSchedule.Kind.SILENT ? Blips.Kind.SILENT
                  : Blips.Kind.RESET);
              Waits.sleep(step.duration());
              proxy.heal();
            }
            case PAUSE -> pauses.add(holders.get(step.holder()).pause(step.duration()));
            case SERVER_RESTART -> server.restart();
          }
        }
        // Quiet time, so that every consequence of the last fault is recorded.
        Waits.sleep(t.multipliedBy(2));
        long end = System.nanoTime();
        for (HolderProcess h : holders) {
          h.finish(CHILD_FINISH);
        }
        return HistoryChecker.check(history(c, timeline, end, versions, writes, pauses));
      } finally {
        holders.forEach(HolderProcess::close);
        proxies.forEach(FaultProxy::close);
      }
    }
  }

  /**
   * The trial's history up to {@code end}; a latch holder's own term numbers become the trial's
   * ({@link LatchTerms}), amlease's epochs are its own.
   */
  private static History history(Contender c, Timeline timeline, long end,
      List<History.LeaderVersion> versions, List<HolderProcess.Write> writes,
      List<History.Pause> pauses) {
    List<History.Interval> intervals = timeline.intervals(end);
    List<History.Write> accepted = writes.stream().filter(w -> w.nanos() - end <= 0)
        .map(w -> new History.Write(w.holder(), w.epoch(), w.version())).toList();
    if (!c.hasEpochs()) {
      LatchTerms terms = LatchTerms.of(timeline.events());
      intervals = intervals.stream().map(terms::apply).toList();
      accepted = accepted.stream().map(terms::apply).toList();
    }
    return new History(intervals, List.copyOf(versions), accepted, List.copyOf(pauses));
  }
}
