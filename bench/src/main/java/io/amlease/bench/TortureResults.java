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
 * Everything one torture run found, as written to {@code results.json}.
 *
 * @param seed the first trial's seed; trial i used {@code seed + i}
 * @param trials trials that ran to the end (a trial that failed, say a server that would not
 *     restart, is in {@code errors} instead)
 * @param trialsPerMinute over the whole run, set-up and checking included
 * @param stopAllowanceMs how long any contender's processes may act after their term ended
 * @param ensemble the servers' timing
 * @param contenders per contender label, its totals over every trial but those with a holder's
 *     clock outside ±ρ
 * @param clockRate the trials with a holder's clock at a rate r, apart: {@code within_rho} and
 *     {@code outside_rho}, each per contender label
 * @param faults per fault kind, how many the schedules of the finished trials held
 * @param trialDetails per trial: seed, holders, what the schedule did, per contender what was found
 */
record TortureResults(String mode, long seed, double durationSeconds, double elapsedSeconds,
    int trials, double trialsPerMinute, long sessionTimeoutMs, long amleaseGraceMs,
    long amleaseRenewIntervalMs, long stopTimeoutMs, long stopAllowanceMs, long trialLengthMs,
    Map<String, Object> ensemble, Map<String, String> environment,
    Map<String, TortureTally.Totals> contenders,
    Map<String, Map<String, TortureTally.Totals>> clockRate, Map<String, Integer> faults,
    List<String> errors,
    List<Map<String, Object>> trialDetails) {

  void writeJson(Path file) throws IOException {
    new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
        .setSerializationInclusion(JsonInclude.Include.NON_NULL)
        .enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(file.toFile(), this);
  }

  TortureTally.Totals get(Contender c) {
    return contenders.get(c.label());
  }
}
