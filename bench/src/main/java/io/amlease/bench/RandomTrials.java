package io.amlease.bench;

import io.amlease.lease.zk.LeaderReader;
import io.amlease.lease.zk.ZkClients;
import io.amlease.testkit.FaultProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;

/**
 * Scenario 5: seeded random fault schedules across 2–3 holders, each on its own fault proxy, with
 * ZooKeeper server restarts; every acting holder writes to a shared node as fast as it can (fenced for
 * amlease, plain for the latches). {@link HistoryChecker} replays what was recorded. Each contender
 * has its own server, so a restart hits only its holders, at the same moment in the schedule.
 */
final class RandomTrials {
  private static final Duration WRITE_EVERY = Duration.ofMillis(50);

  private RandomTrials() {}

  static Map<Contender, ScenarioResult> run(BenchConfig cfg) throws Exception {
    Map<Contender, List<Map<String, Object>>> details = new LinkedHashMap<>();
    Map<Contender, List<Long>> seeds = new LinkedHashMap<>();
    Map<Contender, Integer> counts = new LinkedHashMap<>();
    for (Contender c : cfg.contenders()) {
      details.put(c, new ArrayList<>());
      seeds.put(c, new ArrayList<>());
      counts.put(c, 0);
    }
    for (int i = 0; i < cfg.randomTrials(); i++) {
      RandomSchedule schedule = RandomSchedule.generate(cfg.seed() + i, cfg.sessionTimeout(),
          cfg.randomLength());
      Map<Contender, List<String>> found = Parallel.forEach(cfg.contenders(),
          c -> trial(c, schedule, cfg.sessionTimeout()));
      found.forEach((c, v) -> {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("seed", schedule.seed());
        d.put("holders", schedule.holders());
        d.put("faults", schedule.steps().size());
        d.put("violations", v.size());
        d.put("examples", v.stream().limit(3).toList());
        details.get(c).add(d);
        counts.merge(c, v.size(), Integer::sum);
        if (!v.isEmpty()) {
          seeds.get(c).add(schedule.seed());
        }
      });
    }
    Map<Contender, ScenarioResult> out = new LinkedHashMap<>();
    for (Contender c : cfg.contenders()) {
      out.put(c, new ScenarioResult(cfg.randomTrials(), null, null, null, null, counts.get(c),
          seeds.get(c), details.get(c)));
    }
    return out;
  }

  static List<String> trial(Contender c, RandomSchedule schedule, Duration t) throws Exception {
    String path = "/bench/random/" + c.label();
    String data = path + "/data";
    Timeline timeline = new Timeline();
    List<History.LeaderVersion> versions = new CopyOnWriteArrayList<>();
    List<History.Write> writes = new CopyOnWriteArrayList<>();
    List<FaultProxy> proxies = new ArrayList<>();
    List<Participant> holders = new ArrayList<>();
    List<Thread> writers = new ArrayList<>();
    try (ZkServer server = ZkServer.start();
         CuratorFramework observer = ZkClients.connectReader(server.connectString(),
             Duration.ofSeconds(5));
         LeaderReader reader = new LeaderReader(observer, path)) {
      observer.create().creatingParentsIfNeeded().forPath(data);
      if (c == Contender.AMLEASE) {
        reader.watch(s -> s.info().ifPresent(info -> versions.add(
            new History.LeaderVersion(s.mzxid(), info.epoch()))), e -> { });
      }
      try {
        for (int h = 0; h < schedule.holders(); h++) {
          FaultProxy proxy = FaultProxy.start(server.address());
          proxies.add(proxy);
          Participant p = c.participant("h" + h, proxy.connectString(), path, t, timeline, true);
          holders.add(p);
          p.start();
          writers.add(writer("h" + h, p, data, writes));
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
            case SERVER_RESTART -> server.restart();
          }
        }
        // Quiet time, so that every consequence of the last fault is recorded.
        Waits.sleep(t.multipliedBy(2));
        long end = System.nanoTime();
        writers.forEach(Thread::interrupt);
        for (Thread w : writers) {
          w.join(5000);
        }
        return HistoryChecker.violations(new History(timeline.intervals(end), List.copyOf(versions),
            List.copyOf(writes)));
      } finally {
        writers.forEach(Thread::interrupt);
        proxies.forEach(FaultProxy::close);
        holders.forEach(Participant::close);
      }
    }
  }

  private static Thread writer(String holder, Participant p, String data,
      List<History.Write> writes) {
    Thread w = new Thread(() -> {
      byte[] bytes = holder.getBytes(StandardCharsets.UTF_8);
      while (!Thread.currentThread().isInterrupted()) {
        p.write(data, bytes).ifPresent(x -> writes.add(new History.Write(holder, x.epoch(), x.version())));
        try {
          Thread.sleep(WRITE_EVERY.toMillis());
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "bench-writer-" + holder);
    w.setDaemon(true);
    w.start();
    return w;
  }
}
