package io.amlease.status;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lease holder's status over HTTP ({@link StatusReplies}), for {@code amlease hold --status-port}.
 * The JDK's HTTP server is enough for pages this small and adds no dependency to the runner. (The
 * ApplicationMaster serves the same replies from Jetty, where YARN's AmIpFilter can guard them.)
 */
public final class StatusServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StatusServer.class);

  private final HttpServer server;
  private final ExecutorService executor;
  private final String url;

  private StatusServer(HttpServer server, ExecutorService executor, String url) {
    this.server = server;
    this.executor = executor;
    this.url = url;
  }

  /**
   * Serves on {@code host:port} (port 0: any free port). {@code status} is called per request for
   * the page and the JSON, {@code metrics} for {@code /metrics}; both must be thread-safe.
   *
   * @param title the page's heading, e.g. "amlease ApplicationMaster"
   */
  public static StatusServer start(String host, int port, String title,
      Supplier<Map<String, Object>> status, Supplier<String> metrics) throws IOException {
    StatusReplies replies = new StatusReplies(title, status, metrics);
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getByName(host), port),
        16);
    server.createContext("/", ex -> answer(ex, replies));
    ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "amlease-status-http");
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(executor);
    server.start();
    String url = "http://" + host + ":" + server.getAddress().getPort() + "/";
    LOG.info("status page at {} (also status.json, metrics)", url);
    return new StatusServer(server, executor, url);
  }

  public String url() {
    return url;
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /** The three paths exactly (the JDK matches contexts by prefix); GET and HEAD only. */
  private static void answer(HttpExchange ex, StatusReplies replies) throws IOException {
    try {
      Optional<StatusReplies.Reply> reply = replies.forPath(ex.getRequestURI().getPath());
      if (reply.isEmpty()) {
        ex.sendResponseHeaders(404, -1);
      } else if (!"GET".equals(ex.getRequestMethod()) && !"HEAD".equals(ex.getRequestMethod())) {
        ex.sendResponseHeaders(405, -1);
      } else {
        send(ex, reply.get());
      }
    } catch (RuntimeException e) {
      LOG.warn("status request {} failed", ex.getRequestURI(), e);
      ex.sendResponseHeaders(500, -1);
    } finally {
      ex.close();
    }
  }

  private static void send(HttpExchange ex, StatusReplies.Reply reply) throws IOException {
    byte[] bytes = reply.body().getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", reply.contentType());
    ex.getResponseHeaders().set("Cache-Control", "no-store");
    boolean head = "HEAD".equals(ex.getRequestMethod());
    ex.sendResponseHeaders(200, head ? -1 : bytes.length);
    if (!head) {
      try (OutputStream o = ex.getResponseBody()) {
        o.write(bytes);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
