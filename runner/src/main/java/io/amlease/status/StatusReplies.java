package io.amlease.status;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What a holder's status surfaces answer, by path: {@code /} (HTML for people), {@code
 * /status.json} (the same facts for programs) and {@code /metrics} (Prometheus text format). One
 * place for the HTTP servers that carry them: {@code hold --status-port} ({@link StatusServer}) and
 * the ApplicationMaster's (behind YARN's AmIpFilter).
 */
public final class StatusReplies {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A body and its content type. */
  public record Reply(String contentType, String body) {}

  private final String title;
  private final Supplier<Map<String, Object>> status;
  private final Supplier<String> metrics;

  /**
   * @param title the page's heading, e.g. "amlease ApplicationMaster"
   * @param status called per request for the page and the JSON; must be thread-safe
   * @param metrics called per request for {@code /metrics}; must be thread-safe
   */
  public StatusReplies(String title, Supplier<Map<String, Object>> status,
      Supplier<String> metrics) {
    this.title = title;
    this.status = status;
    this.metrics = metrics;
  }

  /** The reply for {@code path}, or empty for a path that is none of the three. */
  public Optional<Reply> forPath(String path) throws JsonProcessingException {
    return switch (path) {
      case "/" -> Optional.of(new Reply("text/html; charset=utf-8",
          StatusPage.render(title, status.get())));
      case "/status.json" -> Optional.of(new Reply("application/json",
          JSON.writerWithDefaultPrettyPrinter().writeValueAsString(status.get())));
      case "/metrics" -> Optional.of(metrics());
      default -> Optional.empty();
    };
  }

  /** {@code /metrics}, for a server that carries only that. */
  public Reply metrics() {
    return new Reply("text/plain; version=0.0.4; charset=utf-8", metrics.get());
  }
}
