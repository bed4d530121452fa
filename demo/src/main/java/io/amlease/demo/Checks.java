package io.amlease.demo;

import java.util.ArrayList;
import java.util.List;

/**
 * The claims a step checks. A step that can go on measuring after a broken claim collects them
 * here, so its summary row shows every number as well as every problem.
 */
final class Checks {
  private final List<String> problems = new ArrayList<>();

  /** Records {@code problem} unless {@code ok}; returns {@code ok}. */
  boolean check(boolean ok, String problem) {
    if (!ok) {
      problems.add(problem);
    }
    return ok;
  }

  boolean allOk() {
    return problems.isEmpty();
  }

  String problems() {
    return String.join("; ", problems);
  }
}
