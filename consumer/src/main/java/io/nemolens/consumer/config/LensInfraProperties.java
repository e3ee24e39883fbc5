package io.nemolens.consumer.config;

import io.nemolens.decode.InfraClassifier;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * How metric points of scraped infrastructure become GPU and node samples ({@code lens.infra.*}); see
 * {@link InfraClassifier} for the rules.
 *
 * @param enabled whether to classify at all; {@code false} keeps every point a generic metric point
 * @param gpuJobs scrape jobs ({@code service.name}) of dcgm-exporter: their points are GPU samples whatever their name
 * @param gpuMetricPrefix a point whose name starts with this is a GPU sample, from any job
 * @param nodeJobs scrape jobs of node-exporter: their points are node samples whatever their name
 * @param nodeMetricPrefix a point whose name starts with this is a node sample, from any job
 */
@ConfigurationProperties("lens.infra")
public record LensInfraProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("dcgm-exporter") List<String> gpuJobs,
        @DefaultValue("DCGM_FI_") String gpuMetricPrefix,
        @DefaultValue("node-exporter") List<String> nodeJobs,
        @DefaultValue("node_") String nodeMetricPrefix) {

    /** The classifier these settings describe. */
    public InfraClassifier toClassifier() {
        return enabled
                ? new InfraClassifier(gpuJobs, gpuMetricPrefix, nodeJobs, nodeMetricPrefix)
                : InfraClassifier.NONE;
    }
}
