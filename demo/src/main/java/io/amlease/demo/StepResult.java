package io.amlease.demo;

import java.time.Duration;

/**
 * One row of the summary: what a step should do, what it did, how long it took.
 *
 * @param problems why the step did not behave as designed (empty when it did)
 */
record StepResult(String step, String expected, String observed, Duration took, Outcome outcome,
    String problems) {
  enum Outcome { OK, FAILED, SKIPPED }

  static StepResult ok(String step, String expected, String observed, Duration took) {
    return new StepResult(step, expected, observed, took, Outcome.OK, "");
  }

  static StepResult failed(String step, String expected, String observed, Duration took,
      String problems) {
    return new StepResult(step, expected, observed, took, Outcome.FAILED, problems);
  }

  static StepResult skipped(String step, String expected, String why) {
    return new StepResult(step, expected, why, null, Outcome.SKIPPED, "");
  }
}
