package io.amlease.it.field;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.amlease.testkit.field.FieldCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The field cluster itself: separate daemons, each node as its own user, and a node partition that
 * is real, so the ResourceManager expires the node while the others run on, and takes it back after
 * the heal.
 */
class FieldClusterIT {
    private static final Duration NODE_EXPIRY = Duration.ofSeconds(8);
    private static FieldCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = FieldCluster.start(FieldCluster.Options.jarsListedIn(
                Path.of(System.getProperty("amlease.field.classpath")), 3, NODE_EXPIRY));
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @AfterEach
    void heal() throws Exception {
        cluster.heal();
    }

    @Test
    void eachNodeManagerRunsAsItsNodesOwnUser() throws Exception {
        for (FieldCluster.Node node : cluster.nodes()) {
            assertThat(ProcessHandle.of(node.nodeManager().pid()).flatMap(h -> h.info().user()))
                    .contains(node.user().name());
        }
        assertThat(cluster.zkModes()).containsExactlyInAnyOrder("leader", "follower", "follower");
    }

    @Test
    void aPartitionedNodeIsLostWhileTheOthersRunAndComesBackAfterTheHeal() throws Exception {
        FieldCluster.Node cut = cluster.node(1);
        cluster.partition(cut);
        await("the RM expires the cut node").atMost(NODE_EXPIRY.multipliedBy(3))
                .until(() -> cluster.nodeState(cut).equals(Optional.of("LOST")));
        for (FieldCluster.Node other : cluster.nodes().subList(1, cluster.nodes().size())) {
            assertThat(cluster.nodeState(other)).as("node %d", other.index()).contains("RUNNING");
        }
        assertThat(cut.nodeManager().isAlive()).as("the cut node's NodeManager runs on").isTrue();

        cluster.heal();
        await("the healed node re-registers").atMost(Duration.ofSeconds(60))
                .until(() -> cluster.nodeState(cut).equals(Optional.of("RUNNING")));
    }
}
