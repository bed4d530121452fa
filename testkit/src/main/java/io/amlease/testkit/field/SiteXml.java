package io.amlease.testkit.field;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/** A Hadoop {@code *-site.xml} file, written as a real install's conf dir would hold it. */
final class SiteXml {
    private SiteXml() {}

    static void write(Path file, Map<String, String> properties) throws IOException {
        StringBuilder xml = new StringBuilder("<?xml version=\"1.0\"?>\n<configuration>\n");
        new TreeMap<>(properties).forEach((k, v) -> xml.append("  <property><name>").append(escape(k))
                .append("</name><value>").append(escape(v)).append("</value></property>\n"));
        xml.append("</configuration>\n");
        Files.writeString(file, xml);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
