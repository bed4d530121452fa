package io.amlease.lease.example;

import static org.assertj.core.api.Assertions.assertThat;

import io.amlease.lease.zk.ZkClients;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/** The README's library example is the code in {@link LibraryExample}, and it runs. */
class ReadmeExampleTest {
  private static final Path SOURCE =
      Path.of("src/test/java/io/amlease/lease/example/LibraryExample.java");
  private static final Path README = Path.of("../README.md");

  @Test
  void theReadmeShowsTheExampleVerbatim() throws Exception {
    List<String> code = Files.readAllLines(SOURCE);
    int from = code.indexOf("    // README example begins") + 1;
    int to = code.indexOf("    // README example ends");
    String example = code.subList(from, to).stream().map(l -> l.length() >= 4 ? l.substring(4) : l)
        .collect(Collectors.joining("\n"));
    assertThat(Files.readString(README)).contains("```java\n" + example + "\n```");
  }

  @Test
  void theExampleRunsAgainstZooKeeper() throws Exception {
    InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1,
        java.util.Map.of("clientPortAddress", "127.0.0.1"), "127.0.0.1");
    try (TestingServer server = new TestingServer(spec, true)) {
      LibraryExample.run(server.getConnectString());
      try (CuratorFramework reader = ZkClients.connectReader(server.getConnectString(),
          Duration.ofSeconds(5))) {
        assertThat(new String(reader.getData().forPath("/amlease/myapp-state"),
            StandardCharsets.UTF_8)).isEqualTo("hello");
        assertThat(reader.checkExists().forPath("/amlease/myapp/leader")).as("released").isNull();
      }
    }
  }
}
