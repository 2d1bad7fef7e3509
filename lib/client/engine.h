/* engine.h - the engines a profile can name (engine.c's table), and
 * what each module gives that table: how a profile becomes its client,
 * what adding one checks, its settings as JSON. Not installed, not for
 * cli/. */
#ifndef PAI_ENGINE_H
#define PAI_ENGINE_H

#include "pai.h"

/* What pai_client_open() was given, for an engine's open. */
struct pai__open {
	const pai_config *cfg;
	const char *name;	 /* the profile's */
	const pai_profile *prof; /* NULL: a URI with no profile */
	pai_client_options opts; /* uri: the one given, else the profile's */
	const pai_open_options *oo;
	char **detail; /* may be NULL */
};

/* One engine: the profiles it takes, and its parts. */
struct pai__engine {
	pai_api api;	     /* the profile's API that names it */
	const char *scheme;  /* and its URI's scheme; NULL: any */
	/* where its own credential comes from (pai_config_own_credentials());
	 * NULL: it takes a bearer token */
	const char *credentials;
	int (*open)(pai_client **out, const struct pai__open *o);
	/* NULL: nothing to check (pai_client_probe()) */
	int (*probe)(char **said, pai_client *c);
	/* NULL: nothing beyond pai_profile (pai_config_settings()) */
	json_t *(*settings)(const pai_config *cfg, const char *name);
	const char *settings_key;
};

/* *o->detail set to a copy of why (when wanted); returns err. */
int pai__open_fail(const struct pai__open *o, int err, const char *why);

/* ---- the Slurm module's (api/slurm/slurm_open.c) -------------------- */

/* A Slurm profile's client: its settings, the user, the JWT (the token
 * file given, the profile's, the token given, else $SLURM_JWT; none for
 * a login node), SSH as o->oo says, the version spoken kept between
 * runs. */
int pai__slurm_open(pai_client **out, const struct pai__open *o);
/* A login node: logged in to, sbatch asked its version. */
int pai__slurm_probe_login(char **said, pai_client *c);
/* A Slurm profile's settings as `cluster list -o json` shows them. */
json_t *pai__slurm_settings(const pai_config *cfg, const char *name);

#endif /* PAI_ENGINE_H */
