package io.nemolens.topology;
