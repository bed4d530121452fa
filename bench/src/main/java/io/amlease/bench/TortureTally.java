package io.amlease.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One contender's totals over a torture run, added up trial by trial. */
final class TortureTally {
  private static final int EXAMPLES = 5;

  /**
   * As written to {@code results.json}.
   *
   * @param violationsByKind kind label → violations of that kind (each overlap counts once per pair
   *     of terms, each orphan once per process)
   * @param violatingSeeds seeds of the trials with any violation; by kind in
   *     {@code violatingSeedsByKind}
   * @param pauseExcused overlaps and orphans explained by a process pause (G2 void): not violations
   * @param pauseExcusedWholeTree of those, the ones whose pause stopped the holder's whole tree (a VM
   *     freeze); the rest stopped the runner alone while its COMMAND ran on
   * @param orphansEnded processes the bench ended once they had outlived their term by the stop
   *     allowance plus a second (each is an orphan violation, or pause-excused)
   * @param terms terms begun, over all trials
   * @param examples the first few violations, each with its seed
   */
  record Totals(int trials, int violations, Map<String, Integer> violationsByKind,
      int trialsWithViolations, List<Long> violatingSeeds,
      Map<String, List<Long>> violatingSeedsByKind, int pauseExcused, int pauseExcusedWholeTree,
      double pauseExcusedMaxMs,
      int orphansEnded, int terms, int writes, List<String> examples) {}

  private int trials;
  private final Map<TortureChecker.Kind, Integer> byKind = new LinkedHashMap<>();
  private final Map<TortureChecker.Kind, List<Long>> seedsByKind = new LinkedHashMap<>();
  private final List<Long> seeds = new ArrayList<>();
  private int pauseExcused;
  private int pauseExcusedWholeTree;
  private double pauseExcusedMaxMs;
  private int orphansEnded;
  private int terms;
  private int writes;
  private final List<String> examples = new ArrayList<>();

  TortureTally() {
    for (TortureChecker.Kind k : TortureChecker.Kind.values()) {
      byKind.put(k, 0);
      seedsByKind.put(k, new ArrayList<>());
    }
  }

  void add(long seed, TortureChecker.Verdict v, TortureTrial.Counts counts, int ended) {
    trials++;
    v.byKind().forEach((k, n) -> {
      byKind.merge(k, n, Integer::sum);
      if (n > 0) {
        seedsByKind.get(k).add(seed);
      }
    });
    if (!v.violations().isEmpty()) {
      seeds.add(seed);
    }
    v.violations().stream().limit(Math.max(0, EXAMPLES - examples.size()))
        .forEach(f -> examples.add("seed " + seed + ": " + f.description()));
    pauseExcused += v.pauseExcused().size();
    pauseExcusedWholeTree += v.pauseExcused().size() - v.pauseExcusedRunnerOnly();
    pauseExcusedMaxMs = Math.max(pauseExcusedMaxMs, v.pauseExcusedMaxMs());
    orphansEnded += ended;
    terms += counts.terms();
    writes += counts.writes();
  }

  int violations() {
    return byKind.values().stream().mapToInt(Integer::intValue).sum();
  }

  Totals totals() {
    Map<String, Integer> kinds = new LinkedHashMap<>();
    Map<String, List<Long>> kindSeeds = new LinkedHashMap<>();
    byKind.forEach((k, n) -> kinds.put(k.label(), n));
    seedsByKind.forEach((k, s) -> kindSeeds.put(k.label(), List.copyOf(s)));
    return new Totals(trials, violations(), kinds, seeds.size(), List.copyOf(seeds), kindSeeds,
        pauseExcused, pauseExcusedWholeTree, pauseExcusedMaxMs, orphansEnded, terms, writes, List.copyOf(examples));
  }
}
