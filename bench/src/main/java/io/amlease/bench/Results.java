package io.amlease.bench;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Everything one run measured, as written to {@code results.json}.
 *
 * @param contenders per contender label, per scenario name ({@code blips}, {@code partitions},
 *     {@code handover}, {@code crash}, {@code random})
 * @param errors scenarios that could not run, with why
 * @param traces the first partition trial of each contender (for the picture; not in the JSON)
 */
record Results(String mode, long seed, long sessionTimeoutMs, long amleaseGraceMs,
    long amleaseRenewIntervalMs, Map<String, String> environment,
    Map<String, Map<String, ScenarioResult>> contenders, Scale scale, Overhead overhead,
    double elapsedSeconds, List<Check> checks, Map<String, String> errors,
    @com.fasterxml.jackson.annotation.JsonIgnore List<Trace> traces) {

  /**
   * An expectation of issue 4's "done when", and whether this run met it. A binding one follows from
   * a DESIGN.md guarantee and decides the exit status; a non-binding one asks more than DESIGN.md
   * promises, and is reported as a finding when it does not hold.
   */
  record Check(String expectation, boolean held, String found, boolean binding) {
    Check(String expectation, boolean held, String found) {
      this(expectation, held, found, true);
    }
  }

  ScenarioResult get(Contender c, String scenario) {
    Map<String, ScenarioResult> m = contenders.get(c.label());
    return m == null ? null : m.get(scenario);
  }

  Results withChecks(List<Check> newChecks) {
    return new Results(mode, seed, sessionTimeoutMs, amleaseGraceMs, amleaseRenewIntervalMs,
        environment, contenders, scale, overhead, elapsedSeconds, newChecks, errors, traces);
  }

  void writeJson(Path file) throws IOException {
    new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
        .setSerializationInclusion(JsonInclude.Include.NON_NULL)
        .enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(file.toFile(), this);
  }
}
