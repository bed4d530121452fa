package io.amlease.status;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lease holder's status over HTTP: {@code /} (HTML for people), {@code /status.json} (the same
 * facts for programs) and {@code /metrics} (Prometheus text format). Used by the ApplicationMaster
 * at its tracking URL and by {@code amlease hold --status-port}. The JDK's HTTP server is enough for
 * pages this small and adds nothing to a NodeManager's class path.
 */
public final class StatusServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StatusServer.class);
  private static final ObjectMapper JSON = new ObjectMapper();

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
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getByName(host), port),
        16);
    server.createContext("/", exact("/", ex -> reply(ex, "text/html; charset=utf-8",
        StatusPage.render(title, status.get()))));
    server.createContext("/status.json", exact("/status.json", ex -> reply(ex,
        "application/json", new String(JSON.writerWithDefaultPrettyPrinter()
            .writeValueAsBytes(status.get()), StandardCharsets.UTF_8))));
    server.createContext("/metrics", exact("/metrics", ex -> reply(ex,
        "text/plain; version=0.0.4; charset=utf-8", metrics.get())));
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

  /** Only {@code path} itself; anything below it is 404 (the JDK matches by prefix). */
  private static HttpHandler exact(String path, HttpHandler handler) {
    return ex -> {
      try {
        if (!ex.getRequestURI().getPath().equals(path)) {
          ex.sendResponseHeaders(404, -1);
        } else if (!"GET".equals(ex.getRequestMethod()) && !"HEAD".equals(ex.getRequestMethod())) {
          ex.sendResponseHeaders(405, -1);
        } else {
          handler.handle(ex);
        }
      } catch (RuntimeException e) {
        LOG.warn("status request {} failed", ex.getRequestURI(), e);
        ex.sendResponseHeaders(500, -1);
      } finally {
        ex.close();
      }
    };
  }

  private static void reply(HttpExchange ex, String type, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
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
