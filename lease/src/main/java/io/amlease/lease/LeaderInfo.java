package io.amlease.lease;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The content of {@code <lease>/leader}: who holds the lease, in which epoch, and how to reach it.
 * Unknown fields are ignored so that older readers can read newer writers.
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonIgnoreProperties(ignoreUnknown = true)
public record LeaderInfo(long epoch, String holder, String host, Integer port,
    Map<String, String> urls, String applicationId, String attemptId, String containerId,
    String sessionId, String acquiredAt) {

  private static final ObjectMapper JSON = new ObjectMapper();

  public LeaderInfo {
    urls = urls == null ? Map.of() : Map.copyOf(urls);
  }

  public static LeaderInfo of(long epoch, String holder, LeaderDetails d, long sessionId,
      String acquiredAt) {
    return new LeaderInfo(epoch, holder, d.host(), d.port(), d.urls(), d.applicationId(),
        d.attemptId(), d.containerId(), "0x" + Long.toHexString(sessionId), acquiredAt);
  }

  public byte[] toJson() {
    try {
      return JSON.writeValueAsBytes(this);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise leader info", e);
    }
  }

  /** @throws LeaseException.BadData naming the path when the bytes are not leader info */
  public static LeaderInfo fromJson(String path, byte[] data) throws LeaseException.BadData {
    try {
      LeaderInfo info = JSON.readValue(data, LeaderInfo.class);
      if (info.epoch() < 1 || info.holder() == null) {
        throw new LeaseException.BadData(path + " is not amlease leader info (needs epoch >= 1 and "
            + "holder): " + preview(data));
      }
      return info;
    } catch (JsonProcessingException e) {
      throw new LeaseException.BadData(path + " is not amlease leader info (" + e.getOriginalMessage()
          + "): " + preview(data));
    } catch (IOException e) {
      throw new LeaseException.BadData(path + " is not amlease leader info (" + e.getMessage()
          + "): " + preview(data));
    }
  }

  private static String preview(byte[] data) {
    String s = new String(data, StandardCharsets.UTF_8).replaceAll("\\s+", " ");
    return "'" + (s.length() > 80 ? s.substring(0, 80) + "…" : s) + "'";
  }

  /** One human-readable line, for {@code amlease leader}. */
  public String toLine() {
    StringBuilder b = new StringBuilder("epoch=").append(epoch).append(" holder=").append(holder);
    if (host != null) b.append(" host=").append(host);
    if (port != null) b.append(" port=").append(port);
    urls.forEach((k, v) -> b.append(" url.").append(k).append('=').append(v));
    if (applicationId != null) b.append(" application=").append(applicationId);
    if (attemptId != null) b.append(" attempt=").append(attemptId);
    if (containerId != null) b.append(" container=").append(containerId);
    if (sessionId != null) b.append(" session=").append(sessionId);
    if (acquiredAt != null) b.append(" acquired=").append(acquiredAt);
    return b.toString();
  }
}
