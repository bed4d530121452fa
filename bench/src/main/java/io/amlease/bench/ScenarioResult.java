package io.amlease.bench;

import java.util.List;
import java.util.Map;

/**
 * One contender's outcome in one scenario ({@code results.json}); fields that do not apply are null.
 *
 * @param trials how many trials ran
 * @param falseRevocations trials in which the holder stopped acting although the fault was shorter
 *     than it should tolerate (blips)
 * @param overlapMs old holder stopped acting − new holder started acting; positive = two leaders
 * @param failoverMs fault (or kill) → new holder acting
 * @param latencyMs release → new holder acting (clean handover)
 * @param violations safety violations found by the history checker
 * @param violatingSeeds seeds of the randomized trials with violations
 * @param trialDetails per-trial figures
 * @param pauseOverlaps overlaps in randomized trials that followed a process pause of one side
 *     (DESIGN.md: G2 does not hold under pauses, so they are not violations)
 * @param pauseOverlapMaxMs the longest of those
 */
record ScenarioResult(int trials, Integer falseRevocations, Summary overlapMs, Summary failoverMs,
    Summary latencyMs, Integer violations, List<Long> violatingSeeds,
    List<Map<String, Object>> trialDetails, Integer pauseOverlaps, Double pauseOverlapMaxMs) {

  /** A result of a scenario without process pauses. */
  ScenarioResult(int trials, Integer falseRevocations, Summary overlapMs, Summary failoverMs,
      Summary latencyMs, Integer violations, List<Long> violatingSeeds,
      List<Map<String, Object>> trialDetails) {
    this(trials, falseRevocations, overlapMs, failoverMs, latencyMs, violations, violatingSeeds,
        trialDetails, null, null);
  }
}
