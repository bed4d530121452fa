package io.amlease.am.web;

import io.amlease.status.StatusReplies;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import javax.servlet.DispatcherType;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.http.FilterContainer;
import org.apache.hadoop.yarn.server.webproxy.amfilter.AmFilterInitializer;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.servlet.FilterHolder;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ApplicationMaster's web surface: the status page, {@code status.json} and {@code /metrics}
 * ({@link StatusReplies}) at the tracking URL, behind YARN's own {@code AmIpFilter}, set up by
 * YARN's {@code AmFilterInitializer} from the AM's configuration as for every YARN application: a
 * request that does not come from the RM's web proxy is redirected to it, so people and programs
 * see the page through the RM (and, on a secure cluster, its authentication), never directly.
 * Optionally a second port serves {@code /metrics} alone, unguarded, for scrapers.
 *
 * <p>Jetty 9.4 and the filter come from the NodeManager's Hadoop class path (Hadoop's own web
 * servers run on the same Jetty); the AM jar carries neither.
 */
public final class AmWebServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AmWebServer.class);
  private static final String STATUS = "status";
  private static final String METRICS = "metrics";

  private final Server server;
  private final String url;
  private final Optional<String> metricsUrl;

  private AmWebServer(Server server, String url, Optional<String> metricsUrl) {
    this.server = server;
    this.url = url;
    this.metricsUrl = metricsUrl;
  }

  /**
   * Serves on {@code host}, any free port.
   *
   * @param conf the AM's YARN configuration: where the RM web proxies are
   * @param metricsPort the port for {@code /metrics} alone (0: any free one), or -1 for none
   */
  public static AmWebServer start(String host, StatusReplies replies, Configuration conf,
      int metricsPort) throws Exception {
    QueuedThreadPool threads = new QueuedThreadPool(8, 2);
    threads.setName("amlease-web");
    threads.setDaemon(true);
    Server server = new Server(threads);
    ContextHandlerCollection contexts = new ContextHandlerCollection();
    ServletContextHandler status = context(STATUS, server, host, 0,
        new RepliesServlet(replies, false));
    new AmFilterInitializer().initFilter(filtersOf(status), conf);
    contexts.addHandler(status);
    if (metricsPort >= 0) {
      contexts.addHandler(context(METRICS, server, host, metricsPort,
          new RepliesServlet(replies, true)));
    }
    server.setHandler(contexts);
    server.setErrorHandler(quietErrors());
    try {
      server.start();
    } catch (Exception e) {
      try {
        server.stop();
      } catch (Exception s) {
        e.addSuppressed(s);
      }
      throw new IOException("cannot serve the status page on " + host + (metricsPort < 0 ? ""
          : " (metrics port " + metricsPort + ")") + ": " + e, e);
    }
    String url = "http://" + host + ":" + port(server, STATUS) + "/";
    Optional<String> metricsUrl = metricsPort < 0 ? Optional.empty()
        : Optional.of("http://" + host + ":" + port(server, METRICS) + "/metrics");
    LOG.info("status page at {} (also status.json, metrics), served only through the RM's web "
        + "proxy{}", url, metricsUrl.map(m -> "; metrics open to scrapers at " + m).orElse(""));
    return new AmWebServer(server, url, metricsUrl);
  }

  /** The tracking URL: the status page, which redirects anyone but the RM's web proxy to it. */
  public String url() {
    return url;
  }

  public int port() {
    return port(server, STATUS);
  }

  /** {@code /metrics} on the metrics port, if there is one. */
  public Optional<String> metricsUrl() {
    return metricsUrl;
  }

  /** Error pages without stack traces. */
  private static ErrorHandler quietErrors() {
    ErrorHandler errors = new ErrorHandler();
    errors.setShowStacks(false);
    errors.setShowMessageInTitle(false);
    return errors;
  }

  /** A connector named {@code name} and the context only it serves ("@name" virtual host). */
  private static ServletContextHandler context(String name, Server server, String host, int port,
      HttpServlet servlet) {
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    ServerConnector connector = new ServerConnector(server, 1, 1,
        new HttpConnectionFactory(http));
    connector.setName(name);
    connector.setHost(host);
    connector.setPort(port);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
    context.setContextPath("/");
    context.setVirtualHosts(new String[] {"@" + name});
    context.addServlet(new ServletHolder(name, servlet), "/");
    context.setErrorHandler(quietErrors());
    return context;
  }

  private static int port(Server server, String name) {
    for (var c : server.getConnectors()) {
      if (name.equals(c.getName())) {
        return ((ServerConnector) c).getLocalPort();
      }
    }
    throw new IllegalStateException("no connector " + name);
  }

  /** Where {@code AmFilterInitializer} puts its filter: in front of every path of {@code c}. */
  private static FilterContainer filtersOf(ServletContextHandler c) {
    return new FilterContainer() {
      @Override
      public void addFilter(String name, String classname, Map<String, String> parameters) {
        FilterHolder holder = new FilterHolder();
        holder.setName(name);
        holder.setClassName(classname);
        holder.setInitParameters(parameters);
        c.addFilter(holder, "/*", EnumSet.of(DispatcherType.REQUEST));
      }

      @Override
      public void addGlobalFilter(String name, String classname, Map<String, String> parameters) {
        addFilter(name, classname, parameters);
      }
    };
  }

  /** Stops serving; a failure to stop is logged, never thrown (it must not change an exit). */
  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      LOG.warn("stopping the status page at {} failed", url, e);
    }
  }

  /**
   * The replies by path; on the metrics port, {@code /metrics} only. As {@code hold}'s server: 404
   * for any other path, then 405 for any method but GET and HEAD.
   */
  private static final class RepliesServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final transient StatusReplies replies;
    private final boolean metricsOnly;

    RepliesServlet(StatusReplies replies, boolean metricsOnly) {
      this.replies = replies;
      this.metricsOnly = metricsOnly;
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      String path = req.getRequestURI();
      Optional<StatusReplies.Reply> reply = !metricsOnly ? replies.forPath(path)
          : "/metrics".equals(path) ? Optional.of(replies.metrics()) : Optional.empty();
      boolean head = "HEAD".equals(req.getMethod());
      if (reply.isEmpty()) {
        resp.sendError(HttpServletResponse.SC_NOT_FOUND);
      } else if (!head && !"GET".equals(req.getMethod())) {
        resp.setHeader("Allow", "GET, HEAD");
        resp.sendError(HttpServletResponse.SC_METHOD_NOT_ALLOWED);
      } else {
        byte[] body = reply.get().body().getBytes(StandardCharsets.UTF_8);
        resp.setContentType(reply.get().contentType());
        resp.setHeader("Cache-Control", "no-store");
        resp.setContentLength(body.length);
        if (!head) {
          resp.getOutputStream().write(body);
        }
      }
    }
  }
}
