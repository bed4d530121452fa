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

/** The README's library examples are the code in {@link LibraryExample}, and they run. */
class ReadmeExampleTest {
  private static final Path SOURCE =
      Path.of("src/test/java/io/amlease/lease/example/LibraryExample.java");
  private static final Path README = Path.of("../README.md");

  @Test
  void theReadmeShowsTheExamplesVerbatim() throws Exception {
    List<String> code = Files.readAllLines(SOURCE);
    for (String name : List.of("example", "guard example")) {
      int from = code.indexOf("    // README " + name + " begins") + 1;
      int to = code.indexOf("    // README " + name + " ends");
      assertThat(to).as(name).isGreaterThan(from);
      String example = code.subList(from, to).stream()
          .map(l -> l.length() >= 4 ? l.substring(4) : l).collect(Collectors.joining("\n"));
      assertThat(Files.readString(README)).as(name).contains("```java\n" + example + "\n```");
    }
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
            StandardCharsets.UTF_8)).isEqualTo("hello again");
        assertThat(reader.checkExists().forPath("/amlease/myapp/leader")).as("released").isNull();
      }
    }
  }
}
