package io.amlease.demo;

import java.util.ArrayList;
import java.util.List;

/**
 * The closing table: step, expected, observed, time, ok; plain text, columns padded. The problems of
 * failed steps follow it, one line each, so the table stays readable.
 */
final class SummaryTable {
  private static final String[] HEADER = {"step", "expected", "observed", "time", "ok"};

  private SummaryTable() {}

  static List<String> render(List<StepResult> results) {
    List<String[]> rows = new ArrayList<>();
    rows.add(HEADER);
    for (StepResult r : results) {
      rows.add(new String[] {r.step(), r.expected(), r.observed(),
          r.took() == null ? "-" : Narrator.secs(r.took()), switch (r.outcome()) {
            case OK -> "ok";
            case FAILED -> "FAILED";
            case SKIPPED -> "skipped";
          }});
    }
    int[] width = new int[HEADER.length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        width[i] = Math.max(width[i], row[i].length());
      }
    }
    List<String> lines = new ArrayList<>();
    for (int r = 0; r < rows.size(); r++) {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < width.length; i++) {
        String cell = rows.get(r)[i];
        b.append(i == 0 ? "" : " | ").append(cell).append(" ".repeat(width[i] - cell.length()));
      }
      lines.add(b.toString().stripTrailing());
      if (r == 0) {
        StringBuilder rule = new StringBuilder();
        for (int i = 0; i < width.length; i++) {
          rule.append(i == 0 ? "" : "-+-").append("-".repeat(width[i]));
        }
        lines.add(rule.toString());
      }
    }
    for (StepResult r : results) {
      if (!r.problems().isEmpty()) {
        lines.add("");
        lines.add(r.step() + " did not behave as designed: " + r.problems());
      }
    }
    return lines;
  }
}
