/* An empty program that does not stamp itself: the control for the stamp library's own cost. */
int main(void)
{
    return 0;
}
