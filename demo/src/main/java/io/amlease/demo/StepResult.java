package io.amlease.demo;

import java.time.Duration;

/** One row of the summary: what a step should do, what it did, how long it took. */
record StepResult(String step, String expected, String observed, Duration took, Outcome outcome) {
  enum Outcome { OK, FAILED, SKIPPED }

  static StepResult ok(String step, String expected, String observed, Duration took) {
    return new StepResult(step, expected, observed, took, Outcome.OK);
  }
}
