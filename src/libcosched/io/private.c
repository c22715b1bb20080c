/* SPDX-License-Identifier: GPL-2.0-or-later */
/* io/private.c - the modes and owners of cosched's files about jobs
 * under the site's PrivateData (see the header). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/libcosched/io/file.h"
#include "src/libcosched/io/private.h"

mode_t cosched_private_file_mode(const cosched_private_t *p)
{
	return p && p->on ? 0600 : 0644;
}

mode_t cosched_private_dir_mode(const cosched_private_t *p)
{
	return p && p->on ? 0700 : 0755;
}

int cosched_private_dir(const cosched_private_t *p, const char *dir,
			bool create, cosched_error_t *err)
{
	struct stat st;
	const char *step;
	int fd, rc = 0;

	if (create && mkdir(dir, cosched_private_dir_mode(p)) &&
	    errno != EEXIST)
		return cosched_error_set(err, "%s: cannot create: %s", dir,
					 strerror(errno));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC |
		       (create ? O_NOFOLLOW : 0));
	if (fd < 0)
		return cosched_error_set(err, "%s: %s", dir,
					 errno == ENOTDIR || errno == ELOOP ?
					 "not a directory" : strerror(errno));
	if (!p || !p->on)
		goto out;
	step = "cannot stat";
	if (fstat(fd, &st))
		goto fail;
	/* Only root may give it away; SlurmUser keeps what it owns. */
	step = "cannot give it to SlurmUser";
	if (p->owner >= 0 && st.st_uid != (uid_t) p->owner &&
	    geteuid() == 0 && fchown(fd, (uid_t) p->owner, (gid_t) -1))
		goto fail;
	step = "cannot take group and other access away";
	if ((st.st_mode & 077) && fchmod(fd, st.st_mode & 07700))
		goto fail;
	goto out;
fail:
	rc = cosched_error_set(err, "%s: PrivateData: %s: %s", dir, step,
			       strerror(errno));
out:
	close(fd);
	return rc;
}

int cosched_private_replace(const cosched_private_t *p, const char *path,
			    const void *data, size_t len, unsigned flags,
			    cosched_error_t *err)
{
	return cosched_file_replace_owned(path, data, len,
					  cosched_private_file_mode(p),
					  p && p->on ? p->owner : -1, flags,
					  err);
}
