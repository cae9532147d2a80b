package io.tsdbwriter;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package rules of docs/architecture.md, on the production classes: the packages follow the data's way in one
 * direction (no cycle between any two packages), {@code cli} holds only the commands (nothing depends on it), the
 * data path's pure stages ({@code decode}, {@code relabel}, {@code amplify}, {@code encode}, {@code pipeline}) know neither Kafka nor
 * HTTP, the write path knows no Kafka, and the consumption models (kafka.segment driven by kafka.group or kafka.replay;
 * kafka.share) know each other only as docs/architecture.md draws them: only app wires them; {@code bench} and
 * {@code capacity} share the lab ({@code lab}) and know neither each other nor, from the lab, the commands.
 */
class ArchitectureTest {

    private static JavaClasses classes;

    @BeforeAll
    static void importProductionClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.tsdbwriter");
    }

    @Test
    void noPackageCycles() {
        // (**): every package is its own slice, decode and decode.json included
        slices().matching("io.tsdbwriter.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void nothingDependsOnTheCommands() {
        noClasses()
                .that()
                .resideOutsideOfPackage("io.tsdbwriter.cli..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.tsdbwriter.cli..")
                .because("cli holds the picocli commands only: the wiring is app, the rest is below it")
                .check(classes);
    }

    @Test
    void decodingAmplifyingAndEncodingKnowNeitherKafkaNorHttp() {
        noClasses()
                .that()
                .resideInAnyPackage(
                        "io.tsdbwriter.decode..",
                        "io.tsdbwriter.relabel..",
                        "io.tsdbwriter.amplify..",
                        "io.tsdbwriter.encode..",
                        "io.tsdbwriter.pipeline..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "org.apache.kafka..",
                        "okhttp3..",
                        "java.net.http..",
                        "io.tsdbwriter.kafka..",
                        "io.tsdbwriter.write.http..",
                        "io.tsdbwriter.app..")
                .check(classes);
    }

    @Test
    void amplificationKnowsNoOtherStage() {
        noClasses()
                .that()
                .resideInAPackage("io.tsdbwriter.amplify..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.tsdbwriter.decode..",
                        "io.tsdbwriter.encode..",
                        "io.tsdbwriter.pipeline..",
                        "io.tsdbwriter.write..",
                        "io.tsdbwriter.kafka..",
                        "io.tsdbwriter.config..")
                .because("the plan, the series cache, the instance variants and the churn generations are what the "
                        + "encoders and the pipeline amplify with; they know neither")
                .check(classes);
    }

    @Test
    void encodingKnowsNeitherThePipelineNorTheWritePath() {
        noClasses()
                .that()
                .resideInAPackage("io.tsdbwriter.encode..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.tsdbwriter.pipeline..", "io.tsdbwriter.write..", "io.tsdbwriter.kafka..")
                .because("an encoder writes a series' amplified samples into a wire buffer; the write path sends "
                        + "the buffer: both share only the wire types")
                .check(classes);
    }

    @Test
    void theWireTypesKnowNoOtherPackage() {
        noClasses()
                .that()
                .resideInAPackage("io.tsdbwriter.wire..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.tsdbwriter..")
                .andShould()
                .dependOnClassesThat()
                .resideOutsideOfPackages("io.tsdbwriter.wire..", "java..")
                .because("the request body's bytes and its protocol lie below encode and write alike")
                .check(classes);
    }

    @Test
    void relabelingKnowsNoOtherStage() {
        noClasses()
                .that()
                .resideInAPackage("io.tsdbwriter.relabel..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.tsdbwriter.decode..",
                        "io.tsdbwriter.amplify..",
                        "io.tsdbwriter.encode..",
                        "io.tsdbwriter.pipeline..",
                        "io.tsdbwriter.write..",
                        "io.tsdbwriter.config..")
                .because(
                        "relabel_config rules map a label set to a label set (between decode and amplify); the pipeline "
                                + "calls them once per series, never the other way round")
                .check(classes);
    }

    @Test
    void tenantsKnowNoOtherPackage() {
        noClasses()
                .that()
                .resideInAPackage("io.tsdbwriter.tenant..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.tsdbwriter.decode..",
                        "io.tsdbwriter.amplify..",
                        "io.tsdbwriter.encode..",
                        "io.tsdbwriter.pipeline..",
                        "io.tsdbwriter.write..",
                        "io.tsdbwriter.config..",
                        "io.tsdbwriter.kafka..",
                        "io.tsdbwriter.metrics..",
                        "io.tsdbwriter.relabel..",
                        "org.apache.kafka..",
                        "okhttp3..")
                .because(
                        "a tenant and where it is read are pure logic: the pipeline, the write path and the metrics use them")
                .check(classes);
    }

    @Test
    void theWritePathKnowsNoKafka() {
        noClasses()
                .that()
                .resideInAPackage("io.tsdbwriter.write..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "org.apache.kafka..",
                        "io.tsdbwriter.kafka..",
                        "io.tsdbwriter.decode..",
                        "io.tsdbwriter.amplify..",
                        "io.tsdbwriter.encode..",
                        "io.tsdbwriter.pipeline..")
                .because(
                        "the write path takes encoded bodies and tells a listener how each ended; it never looks back up the pipeline")
                .check(classes);
    }

    @Test
    void theDurabilityWatchKnowsNoKafka() {
        noClasses()
                .that()
                .resideInAPackage("io.tsdbwriter.durability..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "org.apache.kafka..", "io.tsdbwriter.kafka..", "io.tsdbwriter.app..", "io.tsdbwriter.write..")
                .because(
                        "it watches the TSDB's processes and answers when an acknowledgement counts as stored; the members "
                                + "(kafka) ask it, never the other way round")
                .check(classes);
    }

    @Test
    void theIntakeBaseKnowsNoConsumptionModel() {
        noClasses()
                .that()
                .resideInAPackage("io.tsdbwriter.kafka")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.tsdbwriter.kafka.segment..",
                        "io.tsdbwriter.kafka.group..",
                        "io.tsdbwriter.kafka.replay..",
                        "io.tsdbwriter.kafka.share..")
                .because(
                        "kafka holds what every consumption model shares (Intake, IntakeSettings, RecordCore, RefusedSamples); the models "
                                + "build on it, never the other way round")
                .check(classes);
    }

    @Test
    void theSegmentEngineKnowsNoModelThatDrivesIt() {
        noClasses()
                .that()
                .resideInAPackage("io.tsdbwriter.kafka.segment..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.tsdbwriter.kafka.group..", "io.tsdbwriter.kafka.replay..", "io.tsdbwriter.kafka.share..")
                .because(
                        "segments, watermark and durable offsets are driven by a relay (group) or a replay; they know neither")
                .check(classes);
    }

    @Test
    void shareGroupsKnowNoSegmentsNoGroupAndNoReplay() {
        noClasses()
                .that()
                .resideInAPackage("io.tsdbwriter.kafka.share..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.tsdbwriter.kafka.segment..", "io.tsdbwriter.kafka.group..", "io.tsdbwriter.kafka.replay..")
                .because("a share group acknowledges each record (KIP-932): no segment, no watermark, no commit")
                .check(classes);
    }

    @Test
    void relayAndReplayDoNotKnowEachOther() {
        noClasses()
                .that()
                .resideInAPackage("io.tsdbwriter.kafka.group..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.tsdbwriter.kafka.replay..", "io.tsdbwriter.kafka.share..")
                .check(classes);
        noClasses()
                .that()
                .resideInAPackage("io.tsdbwriter.kafka.replay..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.tsdbwriter.kafka.group..", "io.tsdbwriter.kafka.share..")
                .because(
                        "both drive the segment engine; a replay has no group and commits nothing (docs/design.md §5, §10)")
                .check(classes);
    }

    @Test
    void onlyTheAppWiresTheConsumptionModels() {
        noClasses()
                .that()
                .resideOutsideOfPackages(
                        "io.tsdbwriter.app..",
                        "io.tsdbwriter.kafka.group..",
                        "io.tsdbwriter.kafka.replay..",
                        "io.tsdbwriter.kafka.share..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.tsdbwriter.kafka.group..", "io.tsdbwriter.kafka.replay..", "io.tsdbwriter.kafka.share..")
                .because("WriterService chooses GroupMember, ReplayMember or ShareMember; nothing else names a model")
                .check(classes);
    }

    @Test
    void deadLettersKnowNoConsumptionModel() {
        noClasses()
                .that()
                .resideInAPackage("io.tsdbwriter.deadletter..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.tsdbwriter.kafka..", "io.tsdbwriter.app..")
                .because("the dead-letter queue produces what any model refused; the models call it")
                .check(classes);
    }

    @Test
    void benchAndCapacityDoNotKnowEachOther() {
        noClasses()
                .that()
                .resideInAPackage("io.tsdbwriter.capacity..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.tsdbwriter.bench..")
                .because(
                        "what the capacity search shares with the bench (placement, fresh receivers, writer cells, feeders, "
                                + "CPU and metric sampling) is in lab")
                .check(classes);
        noClasses()
                .that()
                .resideInAPackage("io.tsdbwriter.bench..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.tsdbwriter.capacity..")
                .because(
                        "no arrow runs from bench to capacity either: what both read of a target's /metrics is tsdbmetrics, "
                                + "below app, as the running writer reads it")
                .check(classes);
    }

    @Test
    void theTargetsMetricsRoomKnowsNoCommandNorTheWriter() {
        noClasses()
                .that()
                .resideInAPackage("io.tsdbwriter.tsdbmetrics..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.tsdbwriter.app..",
                        "io.tsdbwriter.cli..",
                        "io.tsdbwriter.bench..",
                        "io.tsdbwriter.capacity..",
                        "io.tsdbwriter.lab..",
                        "io.tsdbwriter.kafka..",
                        "io.tsdbwriter.write..",
                        "io.tsdbwriter.metrics..",
                        "io.tsdbwriter.durability..")
                .because("what a target's /metrics say is read by the running writer (permits, limited_by, retention, "
                        + "durability) and by the commands alike; it depends on nothing but the exposition tokenizer")
                .check(classes);
    }

    @Test
    void theLabKnowsNeitherCommand() {
        noClasses()
                .that()
                .resideInAPackage("io.tsdbwriter.lab..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.tsdbwriter.bench..", "io.tsdbwriter.capacity..", "io.tsdbwriter.cli..")
                .because(
                        "lab is the room bench and capacity share; it uses the writer's path, never the commands above it")
                .check(classes);
    }

    @Test
    void onlyTheCommandsUseTheLab() {
        noClasses()
                .that()
                .resideOutsideOfPackages(
                        "io.tsdbwriter.lab..",
                        "io.tsdbwriter.bench..",
                        "io.tsdbwriter.capacity.search..",
                        "io.tsdbwriter.cli..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.tsdbwriter.lab..")
                .because(
                        "the lab runs the writer as a child process under load; the writer itself (app and below) never reaches it")
                .check(classes);
    }

    @Test
    void everyChildProcessIsMadeByChildProcess() {
        noClasses()
                .that()
                .doNotHaveFullyQualifiedName("io.tsdbwriter.lab.ChildProcess")
                .should()
                .callConstructor(ProcessBuilder.class, List.class)
                .orShould()
                .callConstructor(ProcessBuilder.class, String[].class)
                .because("lab.ChildProcess removes every TSDB_WRITER_* variable from a child's environment: a child "
                        + "gets what its parent passes as flags, never run's defaults from the parent's environment")
                .check(classes);
    }
}
