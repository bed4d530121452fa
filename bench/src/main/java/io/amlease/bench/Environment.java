package io.amlease.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;

/** The machine and versions a run used, recorded with its figures. */
final class Environment {
  private Environment() {}

  static Map<String, String> describe() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
    m.put("max_heap_mib", Long.toString(Runtime.getRuntime().maxMemory() >> 20));
    m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
    m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
        + System.getProperty("os.arch"));
    m.put("zookeeper", org.apache.zookeeper.Version.getFullVersion());
    m.put("curator", jarVersion(CuratorFramework.class));
    return m;
  }

  /** The version in the name of the jar a class was loaded from ({@code curator-framework-5.9.0.jar}). */
  private static String jarVersion(Class<?> c) {
    String impl = c.getPackage().getImplementationVersion();
    if (impl != null) {
      return impl;
    }
    try {
      String path = c.getProtectionDomain().getCodeSource().getLocation().getPath();
      String name = path.substring(path.lastIndexOf('/') + 1);
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("-(\\d[\\w.-]*)\\.jar$").matcher(name);
      return m.find() ? m.group(1) : "unknown";
    } catch (RuntimeException e) {
      return "unknown";
    }
  }
}
