/* SPDX-License-Identifier: MIT */
/* The job (src/core/job.h): encode -> decode -> equal for every field of
 * the list, defaults of missing fields, and the errors (unknown field,
 * wrong type, missing bench); the sweep options through a job and back. */
#include "core/job.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"

static void *member(struct job *j, const struct job_field *f) { return (char *)j + f->off; }

/* A value for field f unlike its default, which differs with seed. */
static void set_field(struct job *j, const struct job_field *f, int seed)
{
	void *m = member(j, f);
	char buf[64];
	switch (f->type) {
	case JOB_STR: {
		snprintf(buf, sizeof(buf), "%s-\"value\" %d \xc3\xa9", f->name, seed);
		char *s = strdup(buf), *old;
		memcpy(&old, m, sizeof(old));
		free(old);
		memcpy(m, &s, sizeof(s));
		break;
	}
	case JOB_OBJ: {
		json_t *o = json_pack("{s:s,s:s}", "depth", "16", "k", f->name), *old;
		json_object_set_new(o, "seed", json_integer(seed)); /* replaced: strings only */
		json_object_set_new(o, "seed", json_string(seed ? "1" : "0"));
		memcpy(&old, m, sizeof(old));
		json_decref(old);
		memcpy(m, &o, sizeof(o));
		break;
	}
	case JOB_INT: {
		int v = (int)f->def_num + 7 + seed;
		memcpy(m, &v, sizeof(v));
		break;
	}
	case JOB_BOOL: {
		int v = !(int)f->def_num;
		memcpy(m, &v, sizeof(v));
		break;
	}
	case JOB_U64: {
		uint64_t v = (uint64_t)f->def_num + 1000000007u + (uint64_t)seed;
		memcpy(m, &v, sizeof(v));
		break;
	}
	case JOB_DBL: {
		double v = f->def_num + 0.1 + 1.0 / 3.0 + seed;
		memcpy(m, &v, sizeof(v));
		break;
	}
	}
}

/* encode, dump to text, parse, decode: equal to j? */
static int round_trip(const struct job *j, struct job *back, char *err, size_t errlen)
{
	json_t *o = job_to_json(j);
	char *txt = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	json_t *p = txt ? json_loads(txt, 0, NULL) : NULL;
	free(txt);
	int rc = p ? job_from_json(p, back, err, errlen) : -1;
	json_decref(p);
	return rc;
}

static int decode_text(const char *txt, struct job *j, char *err, size_t errlen)
{
	json_t *o = json_loads(txt, 0, NULL);
	int rc = job_from_json(o, j, err, errlen);
	json_decref(o);
	return rc;
}

/* txt is refused, the error names field, and nothing is left in the job. */
static void refused(const char *txt, const char *field)
{
	char err[256] = "";
	struct job j, z;
	CHECK(decode_text(txt, &j, err, sizeof(err)) == -1, "%s is refused", txt);
	CHECK(strstr(err, field) != NULL, "%s: the error names %s: %s", txt, field, err);
	job_init(&z);
	CHECK(job_equal(&j, &z), "%s: a refused job is left empty", txt);
}

int main(void)
{
	char err[256];
	struct job a, b;

	/* every field at once, and each field alone (the others at their defaults) */
	job_init(&a);
	for (size_t i = 0; i < job_nfields; i++)
		set_field(&a, &job_fields[i], 1);
	CHECK(round_trip(&a, &b, err, sizeof(err)) == 0, "all fields: %s", err);
	CHECK(job_equal(&a, &b), "all fields round-trip equal");
	job_clear(&b);
	job_clear(&a);
	for (size_t i = 0; i < job_nfields; i++) {
		const struct job_field *f = &job_fields[i];
		job_init(&a);
		job_set(&a.bench, "fs.create");
		set_field(&a, f, 2);
		job_init(&b);
		CHECK(!job_equal(&a, &b) || !strcmp(f->name, "bench"), "%s: set differs from init", f->name);
		CHECK(round_trip(&a, &b, err, sizeof(err)) == 0, "%s alone: %s", f->name, err);
		CHECK(job_equal(&a, &b), "%s alone round-trips", f->name);
		json_t *o = job_to_json(&a);
		CHECK(json_object_get(o, f->name) != NULL, "%s is encoded", f->name);
		CHECK(json_object_size(o) == job_nfields, "every field encoded (%zu)", json_object_size(o));
		json_decref(o);
		job_clear(&a);
		job_clear(&b);
	}

	/* defaults: a job naming its bench alone gets every declared default */
	CHECK(decode_text("{\"bench\":\"fs.create\"}", &b, err, sizeof(err)) == 0, "bench alone: %s", err);
	job_init(&a);
	job_set(&a.bench, "fs.create");
	CHECK(job_equal(&a, &b), "missing fields take their declared defaults");
	CHECK(b.repeat == 1 && b.net_srv_nsfd == -1 && b.min_samples == 200 && b.ci_target == 0.02 &&
		      b.net_family == AF_INET && b.op_timeout_s == 10,
	      "defaults as declared: repeat %d, srv_nsfd %d, min_samples %llu", b.repeat,
	      b.net_srv_nsfd, (unsigned long long)b.min_samples);
	job_clear(&a);
	job_clear(&b);
	CHECK(decode_text("{\"bench\":\"x\",\"variant\":null,\"params\":null}", &b, err, sizeof(err)) == 0,
	      "null for an optional string and object: %s", err);
	CHECK(b.variant == NULL && b.params == NULL, "null is none");
	job_clear(&b);

	/* errors, each naming the field */
	refused("{}", "bench");
	refused("{\"bench\":null}", "bench");
	refused("{\"bench\":3}", "bench");
	refused("{\"bench\":\"x\",\"benhc\":\"y\"}", "benhc");
	refused("{\"bench\":\"x\",\"repeat\":\"3\"}", "repeat");
	refused("{\"bench\":\"x\",\"repeat\":2.5}", "repeat");
	refused("{\"bench\":\"x\",\"repeat\":4294967296}", "repeat");
	refused("{\"bench\":\"x\",\"net_netns\":1}", "net_netns");
	refused("{\"bench\":\"x\",\"quick\":null}", "quick");
	refused("{\"bench\":\"x\",\"max_n\":-1}", "max_n");
	refused("{\"bench\":\"x\",\"max_n\":1.0}", "max_n");
	refused("{\"bench\":\"x\",\"budget_s\":\"0.5\"}", "budget_s");
	refused("{\"bench\":\"x\",\"params\":[]}", "params");
	refused("{\"bench\":\"x\",\"params\":{\"depth\":16}}", "params");
	refused("{\"bench\":\"x\",\"dir\":false}", "dir");
	refused("[]", "object");
	CHECK(job_from_json(NULL, &b, err, sizeof(err)) == -1, "no JSON at all is refused");
	/* a double is read from an integer too (a job file's "budget_s": 1) */
	CHECK(decode_text("{\"bench\":\"x\",\"budget_s\":1}", &b, err, sizeof(err)) == 0 && b.budget_s == 1.0,
	      "an integer for a number: %s", err);
	job_clear(&b);
	/* a U64 beyond what JSON holds is not encoded as something else */
	job_init(&a);
	a.max_n = UINT64_MAX;
	json_t *o = job_to_json(&a);
	CHECK(o == NULL, "max_n = UINT64_MAX is not encoded (it would read back negative)");
	json_decref(o);
	job_clear(&a);

	/* sweep options -> job -> JSON -> job -> sweep options */
	struct clock_info ci = {.id = "CLOCK_MONOTONIC", .source = "tsc", .resolution_ns = 1,
				.read_cost_ns = 21.5};
	struct bench_net net = {.family = AF_INET6, .netns = 1, .srv_nsfd = 7, .peer = "[::1]:9",
				.key = "k"};
	struct sweep_opts so = {.scratch = "/tmp/s", .max_n = 5000, .min_n = 10, .budget_s = 0.2,
				.run_budget_s = 0.05, .quick = 1, .repeat = 3, .rep_first = 2,
				.rep_count = 1, .ci_target = 0.05, .min_samples = 100,
				.op_timeout_s = 3, .decide = 1, .max_latency_ns = 5e5, .tasks = 4,
				.net = &net, .clk = &ci};
	job_init(&a);
	CHECK(job_from_sweep(&a, "net.request", &so) == 0, "job_from_sweep");
	CHECK(round_trip(&a, &b, err, sizeof(err)) == 0 && job_equal(&a, &b), "sweep job round-trips: %s", err);
	struct sweep_opts so2;
	struct bench_net net2;
	struct clock_info ci2;
	job_sweep_opts(&b, &so2, &net2, &ci2);
	CHECK(!strcmp(so2.scratch, "/tmp/s") && so2.max_n == 5000 && so2.min_n == 10 &&
		      so2.budget_s == 0.2 && so2.run_budget_s == 0.05 && so2.quick == 1 &&
		      so2.full == 0 && so2.repeat == 3 && so2.rep_first == 2 && so2.rep_count == 1 &&
		      so2.ci_target == 0.05 && so2.min_samples == 100 && so2.op_timeout_s == 3 &&
		      so2.decide == 1 && so2.no_decide == 0 && so2.max_latency_ns == 5e5 &&
		      so2.tasks == 4,
	      "sweep options come back");
	CHECK(so2.net == &net2 && net2.family == AF_INET6 && net2.netns == 1 && net2.srv_nsfd == 7 &&
		      !strcmp(net2.peer, "[::1]:9") && !strcmp(net2.key, "k"),
	      "network settings come back");
	CHECK(so2.clk == &ci2 && !strcmp(ci2.id, "CLOCK_MONOTONIC") && !strcmp(ci2.source, "tsc") &&
		      ci2.resolution_ns == 1 && ci2.read_cost_ns == 21.5,
	      "clock comes back");
	job_clear(&a);
	job_clear(&b);
	/* no network settings: sweep_net's IPv4 on loopback, no server namespace */
	struct sweep_opts bare = {.repeat = 1};
	job_init(&a);
	CHECK(job_from_sweep(&a, "fs.create", &bare) == 0 && a.net_family == AF_INET &&
		      a.net_srv_nsfd == -1 && !a.net_netns && !a.net_peer,
	      "no net: IPv4 loopback, srv_nsfd -1 (was %d)", a.net_srv_nsfd);
	job_clear(&a);
	return t_done("test_job");
}
