package io.amlease.status;

import java.util.List;
import java.util.Map;

/**
 * The HTML status page: a badge that says at a glance whether this process leads (and in which
 * epoch), a bar for the grace left, then one table per section of the status map. Static HTML that
 * refreshes itself every 2 s; no scripts, so it works through the RM's web proxy and in any browser.
 */
final class StatusPage {
  private static final String STYLE = """
      body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#1f2328;
      background:#f6f8fa}h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:22px 0 6px}
      .sub{color:#57606a;margin-bottom:14px}.badge{display:inline-block;padding:6px 14px;
      border-radius:16px;font-weight:600;color:#fff}.lead{background:#1a7f37}.wait{background:#9a6700}
      .lost{background:#cf222e}table{border-collapse:collapse;background:#fff;min-width:420px}
      th,td{border:1px solid #d0d7de;padding:4px 10px;text-align:left;font-size:14px;vertical-align:top}
      th{background:#f0f3f6;font-weight:600}td.num{font-variant-numeric:tabular-nums}
      meter{width:260px;height:14px}.none{color:#57606a;font-style:italic}
      """;

  private StatusPage() {}

  static String render(String title, Map<String, Object> status) {
    StringBuilder h = new StringBuilder("<!DOCTYPE html>\n<html lang=\"en\"><head>"
        + "<meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"2\"><title>")
        .append(esc(title)).append("</title><style>").append(STYLE).append("</style></head>\n<body>\n")
        .append("<h1>").append(esc(title)).append("</h1>\n");
    Object lease = status.get("lease");
    if (lease instanceof Map<?, ?> l) {
      h.append("<div class=\"sub\">lease <code>").append(esc(l.get("path"))).append("</code> as <code>")
          .append(esc(l.get("holder_id"))).append("</code></div>\n").append(badge(l)).append('\n');
    }
    for (Map.Entry<String, Object> section : status.entrySet()) {
      h.append("<h2>").append(esc(section.getKey())).append("</h2>\n");
      Object v = section.getValue();
      if (v instanceof Map<?, ?> m) {
        table(h, m);
      } else if (v instanceof List<?> rows) {
        rows(h, rows);
      } else {
        h.append("<p>").append(esc(v)).append("</p>\n");
      }
    }
    return h.append("<p class=\"sub\">also as <a href=\"status.json\">status.json</a> and "
        + "<a href=\"metrics\">metrics</a> (Prometheus)</p>\n</body></html>\n").toString();
  }

  private static String badge(Map<?, ?> lease) {
    StringBuilder b = new StringBuilder();
    if (Boolean.TRUE.equals(lease.get("holder"))) {
      b.append("<span class=\"badge lead\" id=\"badge\">LEADER &middot; epoch ")
          .append(esc(lease.get("epoch"))).append("</span>");
      if (lease.get("grace_ms") instanceof Number grace && lease.get("time_left_ms") instanceof Number left) {
        b.append(" <meter id=\"grace-left\" min=\"0\" max=\"").append(grace.longValue())
            .append("\" value=\"").append(left.longValue()).append("\"></meter> ")
            .append(String.format(java.util.Locale.ROOT, "%.1f s of %.1f s grace left",
                left.longValue() / 1e3, grace.longValue() / 1e3));
      }
    } else {
      String phase = String.valueOf(lease.get("phase"));
      String css = phase.equals("REVOKED") || phase.equals("FAILED") ? "lost" : "wait";
      b.append("<span class=\"badge ").append(css).append("\" id=\"badge\">NOT LEADER &middot; ")
          .append(esc(phase)).append("</span>");
    }
    return b.toString();
  }

  private static void table(StringBuilder h, Map<?, ?> m) {
    h.append("<table>\n");
    m.forEach((k, v) -> h.append("<tr><th>").append(esc(k)).append("</th><td")
        .append(v instanceof Number ? " class=\"num\"" : "").append('>').append(cell(v))
        .append("</td></tr>\n"));
    h.append("</table>\n");
  }

  private static void rows(StringBuilder h, List<?> rows) {
    if (rows.isEmpty()) {
      h.append("<p class=\"none\">none</p>\n");
      return;
    }
    h.append("<table>\n<tr>");
    Map<?, ?> first = (Map<?, ?>) rows.get(0);
    first.keySet().forEach(k -> h.append("<th>").append(esc(k)).append("</th>"));
    h.append("</tr>\n");
    for (Object r : rows) {
      h.append("<tr>");
      ((Map<?, ?>) r).values().forEach(v -> h.append("<td>").append(cell(v)).append("</td>"));
      h.append("</tr>\n");
    }
    h.append("</table>\n");
  }

  private static String cell(Object v) {
    if (v instanceof Map<?, ?> m) {
      StringBuilder s = new StringBuilder();
      m.forEach((k, x) -> s.append(s.length() == 0 ? "" : ", ").append(esc(k)).append(": ")
          .append(esc(x)));
      return s.toString();
    }
    return v == null ? "<span class=\"none\">&ndash;</span>" : esc(v);
  }

  private static String esc(Object o) {
    return String.valueOf(o).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
