package io.amlease.lease;

import java.util.Map;

/**
 * What a holder advertises in {@code <lease>/leader} besides its epoch and id: where to reach it and,
 * for an ApplicationMaster, which YARN application attempt it is. Any field may be null.
 */
public record LeaderDetails(String host, Integer port, Map<String, String> urls,
    String applicationId, String attemptId, String containerId) {
  public static final LeaderDetails NONE = new LeaderDetails(null, null, Map.of(), null, null, null);

  public LeaderDetails {
    urls = urls == null ? Map.of() : Map.copyOf(urls);
  }
}
