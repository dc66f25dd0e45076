/* A program that becomes another: ptrecord stops recording at the exec. */
#include <unistd.h>

int main(int argc, char **argv)
{
	int i, s = 0;

	for (i = 0; i < 10; i++)
		s += i;
	execl("/bin/true", "true", (char *)NULL);
	return s;
}
