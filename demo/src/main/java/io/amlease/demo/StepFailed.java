package io.amlease.demo;

/** A step of the demo did not behave as designed: the demo exits 1 and says which and why. */
final class StepFailed extends Exception {
  private final String step;

  StepFailed(String step, String why) {
    super(why);
    this.step = step;
  }

  String step() {
    return step;
  }
}
