package io.amlease.demo;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What one demo run needs, validated once.
 *
 * @param amJar the shaded AM jar (am-launcher's package phase builds it)
 * @param logDir where the demo's log and the containers' logs of the last run are kept (null: not kept)
 * @param keepRunning leave the cluster and application up after the failover, until interrupted
 */
record DemoConfig(Path amJar, Path logDir, boolean keepRunning) {
  DemoConfig {
    if (amJar == null || !Files.isRegularFile(amJar)) {
      throw new IllegalArgumentException("no shaded AM jar at " + amJar
          + " (demo/run.sh builds it; or pass -Damlease.am.jar=PATH)");
    }
  }
}
