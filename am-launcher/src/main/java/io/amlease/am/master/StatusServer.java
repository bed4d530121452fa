package io.amlease.am.master;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The AM's tracking URL: {@code /status.json} (what {@link AmStatus} reports) and a plain HTML view
 * of the same at {@code /}. The RM's web proxy forwards to it, so users reach it from the RM UI.
 * The JDK's HTTP server is enough for a page this small and brings nothing onto the NodeManager's
 * class path.
 */
final class StatusServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StatusServer.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final String url;

  private StatusServer(HttpServer server, String url) {
    this.server = server;
    this.url = url;
  }

  /** Serves {@code status} on an ephemeral port of {@code host}'s address. */
  static StatusServer start(String host, Supplier<Map<String, Object>> status) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getByName(host), 0), 8);
    server.createContext("/status.json", ex -> {
      if (ex.getRequestURI().getPath().equals("/status.json")) {
        reply(ex, "application/json", JSON.writerWithDefaultPrettyPrinter()
            .writeValueAsBytes(status.get()));
      } else {
        reply(ex, 404);
      }
    });
    server.createContext("/", ex -> {
      if (ex.getRequestURI().getPath().equals("/")) {
        reply(ex, "text/html; charset=utf-8", html(status.get()).getBytes(StandardCharsets.UTF_8));
      } else {
        reply(ex, 404);
      }
    });
    server.setExecutor(Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "status-http");
      t.setDaemon(true);
      return t;
    }));
    server.start();
    String url = "http://" + host + ":" + server.getAddress().getPort() + "/";
    LOG.info("status page at {}", url);
    return new StatusServer(server, url);
  }

  String url() {
    return url;
  }

  int port() {
    return server.getAddress().getPort();
  }

  private static String html(Map<String, Object> status) {
    StringBuilder rows = new StringBuilder();
    status.forEach((k, v) -> rows.append("<tr><th>").append(escape(k)).append("</th><td>")
        .append(escape(String.valueOf(v))).append("</td></tr>\n"));
    return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>amlease "
        + escape(String.valueOf(status.get("application"))) + "</title></head>\n<body>"
        + "<h1>amlease ApplicationMaster</h1>\n<table>\n" + rows
        + "</table>\n<p><a href=\"status.json\">status.json</a></p></body></html>\n";
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace("\"", "&quot;");
  }

  private static void reply(HttpExchange ex, String type, byte[] body) throws IOException {
    ex.getResponseHeaders().set("Content-Type", type);
    ex.getResponseHeaders().set("Cache-Control", "no-store");
    ex.sendResponseHeaders(200, body.length);
    try (OutputStream o = ex.getResponseBody()) {
      o.write(body);
    }
  }

  private static void reply(HttpExchange ex, int code) throws IOException {
    ex.sendResponseHeaders(code, -1);
    ex.close();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
