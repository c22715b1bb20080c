/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_file.c - cosched_file_replace(): the one way cosched replaces a
 * file (src/libcosched/io/file.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cosched_check.h"
#include "src/libcosched/io/file.h"
#include "src/libcosched/io/private.h"

/* The names in dir other than "." and "..", sorted, joined by spaces. */
static int not_dots(const struct dirent *e)
{
	return strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
}

static const char *listing(const char *dir)
{
	static char names[1024];
	struct dirent **e;
	size_t used = 0;
	int n = scandir(dir, &e, not_dots, alphasort);

	ck_assert_int_ge(n, 0);
	names[0] = '\0';
	for (int i = 0; i < n; i++) {
		used += (size_t) snprintf(names + used, sizeof(names) - used,
					  "%s%s", used ? " " : "",
					  e[i]->d_name);
		free(e[i]);
	}
	free(e);
	return names;
}

/* New and replaced: the content, the mode given whatever the umask, a new
 * inode (a reader holding the old file keeps reading the old bytes), and
 * nothing else left in the directory. */
START_TEST(test_replace_writes_whole_file_with_mode)
{
	char dir[256], path[300];
	cosched_error_t err;
	struct stat a, b;
	mode_t old_umask = umask(077);

	cosched_check_tmpdir(dir, sizeof(dir), "file");
	snprintf(path, sizeof(path), "%s/state", dir);
	ck_assert_int_eq(cosched_file_replace(path, "one\n", 4, 0644, 0, &err),
			 0);
	ck_assert_str_eq(cosched_check_read_file(path), "one\n");
	ck_assert_int_eq(stat(path, &a), 0);
	ck_assert_uint_eq(a.st_mode & 07777, 0644);
	ck_assert_int_eq(cosched_file_replace(path, "two\nlines\n", 10, 0600,
					      COSCHED_REPLACE_DURABLE, &err), 0);
	ck_assert_str_eq(cosched_check_read_file(path), "two\nlines\n");
	ck_assert_int_eq(stat(path, &b), 0);
	ck_assert_uint_eq(b.st_mode & 07777, 0600);
	ck_assert(a.st_ino != b.st_ino);
	/* Empty content is a file too. */
	ck_assert_int_eq(cosched_file_replace(path, "", 0, 0644, 0, &err), 0);
	ck_assert_str_eq(cosched_check_read_file(path), "");
	ck_assert_str_eq(listing(dir), "state");
	umask(old_umask);
	cosched_check_rm_rf(dir);
}
END_TEST

/* A symbolic link at the target is refused: the link stays, what it
 * points to is not written, no temporary file stays behind. */
START_TEST(test_replace_refuses_symlink_target)
{
	char dir[256], path[300], victim[300], fifo[300];
	cosched_error_t err;
	struct stat st;

	cosched_check_tmpdir(dir, sizeof(dir), "file");
	snprintf(path, sizeof(path), "%s/state", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	cosched_check_write_file(victim, "precious\n");
	ck_assert_int_eq(symlink("victim", path), 0);
	errno = 0;
	ck_assert_int_eq(cosched_file_replace(path, "x\n", 2, 0644,
					      COSCHED_REPLACE_DURABLE, &err), -1);
	ck_assert_int_eq(errno, ELOOP);
	ck_assert_msg(strstr(err.msg, path) &&
		      strstr(err.msg, "symbolic link"), "%s", err.msg);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_str_eq(cosched_check_read_file(victim), "precious\n");
	/* A dangling link neither: the write would create its target. */
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(symlink("elsewhere", path), 0);
	ck_assert_int_eq(cosched_file_replace(path, "x\n", 2, 0644, 0, &err),
			 -1);
	ck_assert_int_eq(access(victim, F_OK), 0);
	ck_assert_int_eq(unlink(path), 0);
	/* Nor anything but a regular file. */
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(cosched_file_replace(fifo, "x\n", 2, 0644, 0, &err),
			 -1);
	ck_assert_msg(strstr(err.msg, "not a regular file"), "%s", err.msg);
	ck_assert_str_eq(listing(dir), "fifo victim");
	cosched_check_rm_rf(dir);
}
END_TEST

/* The temporary file is created O_EXCL under an unguessable name: links
 * planted beside the target, named as a temporary file would be, are
 * never followed, and the file lands where it should. */
START_TEST(test_replace_ignores_planted_temp_links)
{
	char dir[256], path[300], link[320], victim[300];
	cosched_error_t err;

	cosched_check_tmpdir(dir, sizeof(dir), "file");
	snprintf(path, sizeof(path), "%s/state", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	cosched_check_write_file(victim, "precious\n");
	snprintf(link, sizeof(link), "%s/.state.XXXXXX", dir);
	ck_assert_int_eq(symlink("victim", link), 0);
	snprintf(link, sizeof(link), "%s/state.tmp", dir);
	ck_assert_int_eq(symlink("victim", link), 0);
	ck_assert_int_eq(cosched_file_replace(path, "new\n", 4, 0644, 0, &err),
			 0);
	ck_assert_str_eq(cosched_check_read_file(path), "new\n");
	ck_assert_str_eq(cosched_check_read_file(victim), "precious\n");
	cosched_check_rm_rf(dir);
}
END_TEST

/* A write that fails half way (the file size limit: EFBIG) leaves the old
 * file as it was and no temporary file, and says which file. */
static int fail_half_way(void *arg)
{
	const char *path = arg;
	struct rlimit small = { 8, 8 };
	cosched_error_t err;
	char big[64];

	memset(big, 'x', sizeof(big));
	signal(SIGXFSZ, SIG_IGN);
	if (setrlimit(RLIMIT_FSIZE, &small))
		return 2;
	if (cosched_file_replace(path, big, sizeof(big), 0644,
				 COSCHED_REPLACE_DURABLE, &err) != -1 ||
	    errno != EFBIG)
		return 3;
	if (!strstr(err.msg, path) || !strstr(err.msg, "cannot write"))
		return 4;
	return 0;
}

START_TEST(test_replace_failure_keeps_old_file)
{
	char dir[256], path[300], nodir[320];
	cosched_error_t err;

	cosched_check_tmpdir(dir, sizeof(dir), "file");
	snprintf(path, sizeof(path), "%s/state", dir);
	cosched_check_write_file(path, "old\n");
	cosched_child_run("a write cut by RLIMIT_FSIZE", fail_half_way, path,
			  0, 30);
	ck_assert_str_eq(cosched_check_read_file(path), "old\n");
	ck_assert_str_eq(listing(dir), "state");
	/* No directory to put it in: refused, naming the file. */
	snprintf(nodir, sizeof(nodir), "%s/missing/state", dir);
	ck_assert_int_eq(cosched_file_replace(nodir, "x", 1, 0644, 0, &err),
			 -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_msg(strstr(err.msg, nodir), "%s", err.msg);
	ck_assert_str_eq(listing(dir), "state");
	cosched_check_rm_rf(dir);
}
END_TEST

/* KEEP_OWNER: the replaced file's owner and group carry over (root only
 * can give a file away; elsewhere the writer keeps it, no error). */
START_TEST(test_replace_keeps_owner)
{
	char dir[256], path[300];
	cosched_error_t err;
	struct stat st;
	uid_t uid = geteuid() == 0 ? 65534 : geteuid();
	gid_t gid = geteuid() == 0 ? 65534 : getegid();

	cosched_check_tmpdir(dir, sizeof(dir), "file");
	snprintf(path, sizeof(path), "%s/cosched.conf", dir);
	cosched_check_write_file(path, "old\n");
	if (geteuid() == 0)
		ck_assert_int_eq(chown(path, uid, gid), 0);
	ck_assert_int_eq(cosched_file_replace(path, "new\n", 4, 0640,
					      COSCHED_REPLACE_KEEP_OWNER |
					      COSCHED_REPLACE_DURABLE, &err), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_uid, uid);
	ck_assert_uint_eq(st.st_gid, gid);
	ck_assert_uint_eq(st.st_mode & 07777, 0640);
	ck_assert_str_eq(cosched_check_read_file(path), "new\n");
	cosched_check_rm_rf(dir);
}
END_TEST

/* PrivateData: a file 0600 and given to SlurmUser (root only can give it
 * away: elsewhere SlurmUser is the writer); public, 0644 and the
 * writer's. */
START_TEST(test_private_file_is_slurmusers_only)
{
	char dir[256], path[300];
	cosched_private_t priv = { true, geteuid() == 0 ? 65534 : geteuid() };
	cosched_error_t err;
	struct stat st;

	cosched_check_tmpdir(dir, sizeof(dir), "file");
	snprintf(path, sizeof(path), "%s/1.0.n1.json", dir);
	ck_assert_int_eq(cosched_private_replace(NULL, path, "{}\n", 3, 0,
						 &err), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0644);
	ck_assert_uint_eq(st.st_uid, geteuid());
	ck_assert_int_eq(cosched_private_replace(&priv, path, "{}\n", 3, 0,
						 &err), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	ck_assert_uint_eq(st.st_uid, (uid_t) priv.owner);
	cosched_check_rm_rf(dir);
}
END_TEST

/* PrivateData on a site's older directories: a 0755 one becomes
 * SlurmUser's 0700 at the next use (every file in it then out of others'
 * reach); a new one is created so; public leaves an existing one as it
 * is.  A symbolic link is not a directory cosched created. */
START_TEST(test_private_dir_closes_older_dirs)
{
	char dir[256], sub[300], link[300];
	cosched_private_t priv = { true, geteuid() == 0 ? 65534 : geteuid() };
	cosched_error_t err;
	struct stat st;

	cosched_check_tmpdir(dir, sizeof(dir), "file");
	snprintf(sub, sizeof(sub), "%s/jobs", dir);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	ck_assert_int_eq(chmod(sub, 0755), 0);
	ck_assert_int_eq(cosched_private_dir(NULL, sub, true, &err), 0);
	ck_assert_int_eq(stat(sub, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0755);
	ck_assert_int_eq(cosched_private_dir(&priv, sub, true, &err), 0);
	ck_assert_int_eq(stat(sub, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0700);
	ck_assert_uint_eq(st.st_uid, (uid_t) priv.owner);
	snprintf(sub, sizeof(sub), "%s/live", dir);
	ck_assert_int_eq(cosched_private_dir(&priv, sub, true, &err), 0);
	ck_assert_int_eq(stat(sub, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0700);
	snprintf(link, sizeof(link), "%s/other", dir);
	ck_assert_int_eq(symlink(sub, link), 0);
	ck_assert_int_eq(cosched_private_dir(&priv, link, true, &err), -1);
	ck_assert_msg(strstr(err.msg, "not a directory"), "%s", err.msg);
	cosched_check_rm_rf(dir);
}
END_TEST

Suite *cosched_test_suite(void)
{
	Suite *s = suite_create("file");
	TCase *tc = tcase_create("replace");

	tcase_add_test(tc, test_replace_writes_whole_file_with_mode);
	tcase_add_test(tc, test_replace_refuses_symlink_target);
	tcase_add_test(tc, test_replace_ignores_planted_temp_links);
	tcase_add_test(tc, test_replace_failure_keeps_old_file);
	tcase_add_test(tc, test_replace_keeps_owner);
	tcase_add_test(tc, test_private_file_is_slurmusers_only);
	tcase_add_test(tc, test_private_dir_closes_older_dirs);
	suite_add_tcase(s, tc);
	return s;
}
